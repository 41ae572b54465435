//! JSON text in and out of the core. Natively through serde_json's parser and writer; in the
//! browser through the platform's own `JSON.parse` and `JSON.stringify`, walked to and from
//! `serde_json::Value` (`browser.rs`), so no wasm module carries a JSON text parser or writer.
//! Views go out through a `Value` (`to_value`); what comes in is read from a `Value` by hand.

#[cfg(target_arch = "wasm32")]
pub mod browser;

use serde_json::{Map, Value};

/// A JSON object of `fields`, built without `json!`, whose interpolations each carry a
/// serializer and a panic path into the wasm.
pub fn object<const N: usize>(fields: [(&str, Value); N]) -> Value {
    let mut map = Map::new();
    for (name, value) in fields {
        map.insert(name.to_owned(), value);
    }
    Value::Object(map)
}

/// The value JSON `text` holds, or `None` when it is not JSON.
pub fn parse(text: &str) -> Option<Value> {
    #[cfg(target_arch = "wasm32")]
    {
        browser::parse(text)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        serde_json::from_str(text).ok()
    }
}

/// `value` as compact JSON text.
pub fn text(value: &Value) -> String {
    #[cfg(target_arch = "wasm32")]
    {
        browser::text(value)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_and_values_go_both_ways() {
        let value = json!({"a": [1, -2, 2.5, null, true], "b": "x\"y", "c": {}});
        assert_eq!(parse(&text(&value)), Some(value));
        assert_eq!(parse("{\"a\":"), None);
        assert_eq!(
            object([("a", 1.into()), ("b", "x".into())]),
            json!({"a": 1, "b": "x"})
        );
    }
}
