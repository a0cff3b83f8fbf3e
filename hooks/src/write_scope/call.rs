//! The parts of a PreToolUse call the guard reads, parsed without building the whole JSON tree.
//!
//! A call carries whole file contents; a generic `Value` would spend tens of bytes per number
//! or array element, so an 8 MiB input of `[0,0,…]` would need hundreds of MiB. Here every value
//! the guard does not read is skipped in place (`IgnoredAny` allocates nothing), so memory stays
//! at the input plus the few strings kept. Duplicate keys keep the last value, as `JSON.parse`
//! does in Claude Code itself.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// A JSON value that matters only when it is a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Text {
    Str(String),
    /// Any other JSON value, skipped.
    Other,
}

/// `tool_input`: the target keys when it is an object.
#[derive(Debug, Default)]
pub(crate) enum ToolInput {
    Object(TargetKeys),
    /// Any other JSON value, skipped.
    #[default]
    Other,
}

/// The keys of `tool_input` that may name a write's target.
#[derive(Debug, Default)]
pub(crate) struct TargetKeys {
    pub(crate) file_path: Option<Text>,
    pub(crate) notebook_path: Option<Text>,
    pub(crate) path: Option<Text>,
    /// Codex's `apply_patch` carries its patch text here.
    pub(crate) command: Option<Text>,
}

/// A PreToolUse call: the three fields the guard reads, each absent when the key is.
#[derive(Debug, Default)]
pub(crate) struct Call {
    pub(crate) tool_name: Option<Text>,
    pub(crate) tool_input: Option<ToolInput>,
    pub(crate) cwd: Option<Text>,
}

/// The top level: an object, or anything else.
#[derive(Debug)]
pub(crate) enum TopLevel {
    Object(Call),
    Other,
}

/// Parses `text` as one JSON value with nothing after it.
pub(crate) fn parse(text: &str) -> serde_json::Result<TopLevel> {
    serde_json::from_str(text)
}

/// Drains a sequence, element by element, without keeping anything.
fn skip_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn skip_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Implements the non-map visits of a visitor whose value is `$other` for every such JSON value.
macro_rules! other_unless_map {
    ($other:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
            skip_seq(seq)?;
            Ok($other)
        }
    };
}

impl<'de> Deserialize<'de> for Text {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TextVisitor;
        impl<'de> Visitor<'de> for TextVisitor {
            type Value = Text;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<Text, E> {
                Ok(Text::Str(value.to_owned()))
            }
            fn visit_string<E: de::Error>(self, value: String) -> Result<Text, E> {
                Ok(Text::Str(value))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Text, A::Error> {
                skip_map(map)?;
                Ok(Text::Other)
            }
            other_unless_map!(Text::Other);
        }
        deserializer.deserialize_any(TextVisitor)
    }
}

/// A key, matched against a fixed set without allocating.
enum Key<const N: usize> {
    Known(usize),
    Other,
}

/// Deserializes a key into its index in `names`.
struct KeySeed<const N: usize>(&'static [&'static str; N]);

impl<'de, const N: usize> de::DeserializeSeed<'de> for KeySeed<N> {
    type Value = Key<N>;
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key<N>, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl<'de, const N: usize> Visitor<'de> for KeySeed<N> {
    type Value = Key<N>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object key")
    }
    fn visit_str<E: de::Error>(self, value: &str) -> Result<Key<N>, E> {
        Ok(self
            .0
            .iter()
            .position(|name| *name == value)
            .map_or(Key::Other, Key::Known))
    }
}

const TARGET_KEY_NAMES: [&str; 4] = ["file_path", "notebook_path", "path", "command"];
const CALL_KEY_NAMES: [&str; 3] = ["tool_name", "tool_input", "cwd"];

impl<'de> Deserialize<'de> for ToolInput {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct InputVisitor;
        impl<'de> Visitor<'de> for InputVisitor {
            type Value = ToolInput;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ToolInput, E> {
                Ok(ToolInput::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ToolInput, A::Error> {
                let mut keys = TargetKeys::default();
                while let Some(key) = map.next_key_seed(KeySeed(&TARGET_KEY_NAMES))? {
                    match key {
                        Key::Known(0) => keys.file_path = Some(map.next_value()?),
                        Key::Known(1) => keys.notebook_path = Some(map.next_value()?),
                        Key::Known(2) => keys.path = Some(map.next_value()?),
                        Key::Known(_) => keys.command = Some(map.next_value()?),
                        Key::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(ToolInput::Object(keys))
            }
            other_unless_map!(ToolInput::Other);
        }
        deserializer.deserialize_any(InputVisitor)
    }
}

impl<'de> Deserialize<'de> for TopLevel {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TopVisitor;
        impl<'de> Visitor<'de> for TopVisitor {
            type Value = TopLevel;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<TopLevel, E> {
                Ok(TopLevel::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TopLevel, A::Error> {
                let mut call = Call::default();
                while let Some(key) = map.next_key_seed(KeySeed(&CALL_KEY_NAMES))? {
                    match key {
                        Key::Known(0) => call.tool_name = Some(map.next_value()?),
                        Key::Known(1) => call.tool_input = Some(map.next_value()?),
                        Key::Known(_) => call.cwd = Some(map.next_value()?),
                        Key::Other => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(TopLevel::Object(call))
            }
            other_unless_map!(TopLevel::Other);
        }
        deserializer.deserialize_any(TopVisitor)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::panic, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn call(text: &str) -> Call {
        match parse(text).unwrap() {
            TopLevel::Object(call) => call,
            TopLevel::Other => panic!("not an object"),
        }
    }

    #[test]
    fn reads_the_three_fields_and_skips_the_rest() {
        let got = call(
            r#"{"session_id":"s","tool_name":"Write","tool_input":{"content":[1,{"a":null}],"file_path":"a\"b"},"cwd":"/r","x":{"y":[true]}}"#,
        );
        assert_eq!(got.tool_name, Some(Text::Str("Write".into())));
        assert_eq!(got.cwd, Some(Text::Str("/r".into())));
        let Some(ToolInput::Object(keys)) = got.tool_input else {
            panic!("no tool_input")
        };
        assert_eq!(keys.file_path, Some(Text::Str("a\"b".into())));
        assert_eq!(keys.path, None);
    }

    #[test]
    fn duplicate_keys_keep_the_last_value() {
        let got =
            call(r#"{"tool_name":"Read","tool_name":"Write","tool_input":{"path":1,"path":"p"}}"#);
        assert_eq!(got.tool_name, Some(Text::Str("Write".into())));
        let Some(ToolInput::Object(keys)) = got.tool_input else {
            panic!("no tool_input")
        };
        assert_eq!(keys.path, Some(Text::Str("p".into())));
    }

    #[test]
    fn other_shapes_are_told_apart() {
        for text in ["null", "[]", "\"x\"", "1", "true"] {
            assert!(matches!(parse(text).unwrap(), TopLevel::Other), "{text}");
        }
        let got = call(r#"{"tool_name":{"a":1},"tool_input":[1],"cwd":7}"#);
        assert_eq!(got.tool_name, Some(Text::Other));
        assert!(matches!(got.tool_input, Some(ToolInput::Other)));
        assert_eq!(got.cwd, Some(Text::Other));
        for text in ["", "{", "{} {}", r#"{"tool_name":"\ud800"}"#, "[1,]"] {
            assert!(parse(text).is_err(), "{text}");
        }
    }
}
