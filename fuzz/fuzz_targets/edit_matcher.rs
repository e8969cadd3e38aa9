//! The Edit matcher: any text, old and new string match without a panic; a single exact
//! match is replaced exactly, `replace_all` replaces every exact match, and several exact
//! matches without it are never replaced.
#![no_main]

use libfuzzer_sys::fuzz_target;
use wright_tools::fuzzing::edit_replace;

fuzz_target!(|data: &[u8]| {
    // text \0 old \0 new; the first byte's low bit is replace_all.
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let input = String::from_utf8_lossy(rest);
    let mut parts = input.splitn(3, '\0');
    let (Some(text), Some(old), Some(new)) = (parts.next(), parts.next(), parts.next()) else {
        return;
    };
    if old.is_empty() {
        return;
    }
    let replace_all = flags & 1 == 1;
    let result = edit_replace(text, old, new, replace_all);
    let exact = text.matches(old).count();
    match (&result, exact) {
        (Ok(out), 1) => assert_eq!(*out, text.replacen(old, new, 1)),
        (Ok(out), n) if n > 1 => {
            assert!(
                replace_all,
                "several exact matches replaced without replace_all"
            );
            assert_eq!(*out, text.replace(old, new));
        }
        (Err(_), n) if n == 1 || (n > 1 && replace_all) => {
            panic!("an exact match was not replaced: {result:?}")
        }
        // A tolerant rung replaced one region (reindenting `new`): no panic is the check.
        (Ok(_), _) => {}
        (Err(_), _) => {}
    }
});
