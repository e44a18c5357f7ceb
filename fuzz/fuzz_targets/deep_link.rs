#![no_main]
//! Any input: parsing a deep link never panics, and what parses prints back unchanged.

use countersign_domain::deeplink::DeepLink;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(link) = DeepLink::parse(text)
    {
        assert_eq!(link.to_url(), text);
    }
});
