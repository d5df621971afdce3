//! Task ids: 128 random bits from the operating system, in hex. A task id
//! is a bearer handle (there is no `tasks/list`), so it must not be
//! guessable; the owner check is the second line of defence.

use crate::protocol::ErrorObject;

/// A fresh task id: 32 lowercase hex digits.
pub(crate) fn new_task_id() -> Result<String, ErrorObject> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| ErrorObject::internal(format!("No random task id could be made: {e}")))?;
    let mut id = String::with_capacity(32);
    for b in bytes {
        id.push(char::from_digit(u32::from(b >> 4), 16).unwrap_or('0'));
        id.push(char::from_digit(u32::from(b & 0xf), 16).unwrap_or('0'));
    }
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_128_bits_of_hex_and_differ() {
        let a = new_task_id().unwrap();
        let b = new_task_id().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b);
    }
}
