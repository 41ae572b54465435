//! Pictures as the providers take them: raw bytes (OpenAI's multipart `input_reference`) or
//! base64 in a data URI (Runway's `promptImage`, fal's `image_url`). Each is checked as the
//! real services do (format by its bytes, size limits) and described for tests to inspect.

use base64::Engine;

/// An accepted picture: its type and size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    pub content_type: &'static str,
    pub width: usize,
    pub height: usize,
}

/// The picture in `bytes`, if it is a PNG, JPEG or WebP whose header can be read.
pub fn picture(bytes: &[u8]) -> Result<Seen, String> {
    let content_type = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        "image/png"
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        "image/jpeg"
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        "image/webp"
    } else {
        return Err("Unsupported image format: use PNG, JPEG or WebP".into());
    };
    let size = imagesize::blob_size(bytes).map_err(|e| format!("Invalid image: {e}"))?;
    Ok(Seen {
        content_type,
        width: size.width,
        height: size.height,
    })
}

/// The picture in a `data:image/...;base64,` URI of at most `max_bytes` decoded.
pub fn data_uri(uri: &str, max_bytes: usize) -> Result<Seen, String> {
    let (head, data) = uri
        .strip_prefix("data:")
        .and_then(|rest| rest.split_once(','))
        .ok_or("Expected a data URI")?;
    let declared = head
        .strip_suffix(";base64")
        .ok_or("Expected base64 in the data URI")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| format!("Invalid base64: {e}"))?;
    if bytes.len() > max_bytes {
        return Err(format!("The image is over {max_bytes} bytes"));
    }
    let seen = picture(&bytes)?;
    if seen.content_type != declared {
        return Err(format!(
            "The data URI says {declared} but holds {}",
            seen.content_type
        ));
    }
    Ok(seen)
}

/// The picture in raw base64 (no `data:` prefix) of at most `max_bytes` decoded, whose type
/// must be `declared`.
pub fn raw_base64(data: &str, declared: &str, max_bytes: usize) -> Result<Seen, String> {
    if data.starts_with("data:") {
        return Err("Expected raw base64 without a data: prefix".into());
    }
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| format!("Invalid base64: {e}"))?;
    if bytes.len() > max_bytes {
        return Err(format!("The image is over {max_bytes} bytes"));
    }
    let seen = picture(&bytes)?;
    if seen.content_type != declared {
        return Err(format!(
            "mimeType says {declared} but the bytes are {}",
            seen.content_type
        ));
    }
    Ok(seen)
}

impl std::fmt::Display for Seen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}x{}", self.content_type, self.width, self.height)
    }
}
