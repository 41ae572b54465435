//! JSON through the browser: `JSON.parse` and `JSON.stringify`, with the plain JS data they
//! read and write walked to and from `serde_json::Value`. The wasm interface passes views to
//! the page and commands' arguments from it the same way, without text between.

use js_sys::{Array, Object, Reflect, JSON};
use serde::Serialize;
use serde_json::{Map, Number, Value};
use wasm_bindgen::{JsCast, JsValue};

/// The largest integer a JS number holds exactly (2^53).
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

pub fn parse(text: &str) -> Option<Value> {
    JSON::parse(text).ok().map(|value| from_js(&value))
}

pub fn text(value: &Value) -> String {
    JSON::stringify(&to_js(value))
        .ok()
        .and_then(|text| text.as_string())
        .unwrap_or_default()
}

/// A JS number as serde_json reads the same text: an integer when it is one.
fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < EXACT_INTEGERS {
        if n >= 0.0 {
            Value::from(n as u64)
        } else {
            Value::from(n as i64)
        }
    } else {
        Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
}

/// Plain JS data as a `Value`; what JSON has no form for (undefined, functions) is null.
pub fn from_js(value: &JsValue) -> Value {
    if let Some(flag) = value.as_bool() {
        Value::Bool(flag)
    } else if let Some(n) = value.as_f64() {
        number(n)
    } else if let Some(text) = value.as_string() {
        Value::String(text)
    } else if Array::is_array(value) {
        Value::Array(
            value
                .unchecked_ref::<Array>()
                .iter()
                .map(|item| from_js(&item))
                .collect(),
        )
    } else if value.is_object() && !value.is_function() {
        // Inserted one by one: collecting would sort the entries first, with a sort of its own.
        let mut map = Map::new();
        for entry in Object::entries(value.unchecked_ref()).iter() {
            let pair: &Array = entry.unchecked_ref();
            map.insert(
                pair.get(0).as_string().unwrap_or_default(),
                from_js(&pair.get(1)),
            );
        }
        Value::Object(map)
    } else {
        Value::Null
    }
}

/// A serializable value as plain JS data (undefined when it has no JSON form).
pub fn serialized<T: Serialize + ?Sized>(value: &T) -> JsValue {
    serde_json::to_value(value).map_or(JsValue::UNDEFINED, |value| to_js(&value))
}

/// A `Value` as plain JS data.
pub fn to_js(value: &Value) -> JsValue {
    match value {
        Value::Null => JsValue::NULL,
        Value::Bool(flag) => JsValue::from_bool(*flag),
        Value::Number(n) => JsValue::from_f64(n.as_f64().unwrap_or_default()),
        Value::String(text) => JsValue::from_str(text),
        Value::Array(items) => items.iter().map(to_js).collect::<Array>().into(),
        Value::Object(map) => {
            let object = Object::new();
            for (key, item) in map {
                let _ = Reflect::set(&object, &JsValue::from_str(key), &to_js(item));
            }
            object.into()
        }
    }
}
