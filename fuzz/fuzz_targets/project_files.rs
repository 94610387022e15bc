#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| apicompat_fuzz::project_files(data));
