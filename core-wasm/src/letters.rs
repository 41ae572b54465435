//! How a cast member's name is told apart and its case set aside. Natively (the server, the
//! tests) with Rust's own Unicode tables; in the browser with the platform's
//! (`String.prototype.toLowerCase` and a `\p{Alphabetic}\p{N}` pattern), so that the studio's
//! first load, which offers cast names as a prompt is typed, carries no tables of its own
//! (they cost its wasm about 21 KB). ASCII is answered here either way.

/// Whether `c` is a letter or a digit, as Rust's `char::is_alphanumeric` has it.
pub fn is_letter_or_digit(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    platform::is_letter_or_digit(c)
}

/// `text` in lower case.
pub fn lower(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    platform::lower(text)
}

#[cfg(not(target_arch = "wasm32"))]
mod platform {
    pub fn is_letter_or_digit(c: char) -> bool {
        c.is_alphanumeric()
    }

    pub fn lower(text: &str) -> String {
        text.chars().flat_map(char::to_lowercase).collect()
    }
}

// Through js-sys's bindings, not an `inline_js` snippet: the three wasm modules built from this
// crate write their snippets into one folder of `pkg/`, each numbering its own.
#[cfg(target_arch = "wasm32")]
mod platform {
    use js_sys::{JsString, RegExp};

    thread_local! {
        /// Alphabetic or Numeric: what `char::is_alphanumeric` tests.
        static LETTER_OR_DIGIT: RegExp = RegExp::new(r"^[\p{Alphabetic}\p{N}]$", "u");
    }

    pub fn is_letter_or_digit(c: char) -> bool {
        LETTER_OR_DIGIT.with(|pattern| pattern.test(c.encode_utf8(&mut [0; 4])))
    }

    pub fn lower(text: &str) -> String {
        JsString::from(text).to_lower_case().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_and_digits_of_any_script_count_and_case_is_set_aside() {
        for yes in ['a', 'Z', '7', 'é', 'Ж', '字', '٣'] {
            assert!(is_letter_or_digit(yes), "{yes}");
        }
        for no in ['-', '_', ' ', '@', '.', '—', '😀'] {
            assert!(!is_letter_or_digit(no), "{no}");
        }
        assert_eq!(lower("MARA"), "mara");
        assert_eq!(lower("JOSÉ Ωμέγα"), "josé ωμέγα");
    }
}
