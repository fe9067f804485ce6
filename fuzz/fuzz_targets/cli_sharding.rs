#![no_main]

#[path = "../cli_checks.rs"]
mod cli_checks;

libfuzzer_sys::fuzz_target!(|data: &[u8]| cli_checks::cli_sharding(data));
