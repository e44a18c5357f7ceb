#![no_main]
//! Any bytes as a request body: decoding a submission or a card never panics, and a decoded
//! card validates, digests and renders without panicking.

use countersign_domain::submission::Submission;
use countersign_domain::call::CallView;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(view) = serde_json::from_slice::<CallView>(data) {
        let _ = view.validate("call");
        let _ = countersign_domain::diff::render(&countersign_domain::call::FileDiff {
            path: "p".into(),
            old_text: Some(view.title().to_owned()),
            new_text: String::from_utf8_lossy(data).into_owned(),
            replace_all: None,
            on_disk: None,
            through_link: None,
        });
    }
    if let Ok(s) = serde_json::from_slice::<Submission>(data) {
        let _ = s.validate();
        let _ = countersign_domain::digest::digest(
            &s.tool,
            s.artifact_id.as_ref(),
            s.raw_input.as_ref(),
            &s.call,
        );
    }
});
