//! Member names of JSON objects read without copying them.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Error, IgnoredAny, IntoDeserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// A member name, borrowed from the input unless it had escapes.
pub struct MemberName<'a>(pub Cow<'a, str>);

impl<'de> Deserialize<'de> for MemberName<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visit;

        impl<'de> Visitor<'de> for Visit {
            type Value = MemberName<'de>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }

            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<MemberName<'de>, E> {
                Ok(MemberName(Cow::Borrowed(v)))
            }

            fn visit_str<E>(self, v: &str) -> Result<MemberName<'de>, E> {
                Ok(MemberName(Cow::Owned(v.to_owned())))
            }

            fn visit_string<E>(self, v: String) -> Result<MemberName<'de>, E> {
                Ok(MemberName(Cow::Owned(v)))
            }
        }

        deserializer.deserialize_str(Visit)
    }
}

impl<'de> MemberName<'de> {
    /// The name as a deserializer, to hand on to a type that reads it (a
    /// derived struct's field identifier), borrowed when it can be.
    pub fn into_deserializer<E: Error>(self) -> NameDeserializer<'de, E> {
        match self.0 {
            Cow::Borrowed(name) => NameDeserializer::Borrowed(serde::de::value::BorrowedStrDeserializer::new(name)),
            Cow::Owned(name) => NameDeserializer::Owned(name.into_deserializer()),
        }
    }
}

/// A member name as a deserializer.
pub enum NameDeserializer<'de, E> {
    Borrowed(serde::de::value::BorrowedStrDeserializer<'de, E>),
    Owned(serde::de::value::StringDeserializer<E>),
}

impl<'de, E: Error> serde::Deserializer<'de> for NameDeserializer<'de, E> {
    type Error = E;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        match self {
            NameDeserializer::Borrowed(d) => d.deserialize_any(visitor),
            NameDeserializer::Owned(d) => d.deserialize_any(visitor),
        }
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// A member read raw by [`read_members`]: its value, and whether the object
/// held it more than once (the last value is kept). Which of two values
/// counts would be a guess, so each reader decides how to refuse a repeat.
#[derive(Debug, Default, Clone, Copy)]
pub struct RawMember<'de> {
    pub value: Option<&'de RawValue>,
    pub repeated: bool,
}

/// Reads the members of an object named in `names` raw into `members` (in
/// the same order), handing the name of every other member to `other`,
/// which must read or skip its value.
pub fn read_members<'de, A: MapAccess<'de>>(
    map: &mut A,
    names: &[&str],
    members: &mut [RawMember<'de>],
    mut other: impl FnMut(&mut A, Cow<'de, str>) -> Result<(), A::Error>,
) -> Result<(), A::Error> {
    while let Some(MemberName(name)) = map.next_key::<MemberName<'de>>()? {
        match names.iter().position(|wanted| *wanted == name) {
            Some(i) => {
                let member = &mut members[i];
                member.repeated |= member.value.replace(map.next_value()?).is_some();
            }
            None => other(map, name)?,
        }
    }
    Ok(())
}

/// An `other` for [`read_members`] that skips the value unread.
pub fn skip<'de, A: MapAccess<'de>>(map: &mut A, _name: Cow<'de, str>) -> Result<(), A::Error> {
    map.next_value::<IgnoredAny>().map(drop)
}
