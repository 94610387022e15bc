#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| apicompat_fuzz::check_file(data));
