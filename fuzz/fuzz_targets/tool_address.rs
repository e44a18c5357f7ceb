#![no_main]
//! Any input: parsing a tool address never panics; what parses is ASCII and bounded.

use countersign_domain::tool::{MAX_TOOL_ADDRESS_BYTES, ToolAddress};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data)
        && let Ok(address) = ToolAddress::parse(text)
    {
        assert!(address.as_str().is_ascii());
        assert!(address.as_str().len() <= MAX_TOOL_ADDRESS_BYTES);
        let _ = address.parts();
    }
});
