//! The rules for text people type that others read: a reviewer's name and comment, a review
//! link's title. Kept as written (it is shown as text), trimmed, within a length.

use super::error::ApiError;

/// `text_field`'s rule, on one line and with no control or text-direction characters.
pub(super) fn one_line(field: &str, value: &str, max: usize) -> Result<String, ApiError> {
    let line = text_field(field, value, max)?;
    if line.chars().any(studio_core::review::breaks_a_name) {
        return Err(ApiError::Unprocessable(format!(
            "{field} must be on one line, without control or text-direction characters"
        )));
    }
    Ok(line)
}

/// A field of 1 to `max` characters once trimmed; kept as written (it is shown as text).
pub(super) fn text_field(field: &str, value: &str, max: usize) -> Result<String, ApiError> {
    let value = value.trim();
    let count = value.chars().count();
    if count == 0 || count > max {
        return Err(ApiError::Unprocessable(format!(
            "{field} must be 1 to {max} characters"
        )));
    }
    Ok(value.to_owned())
}
