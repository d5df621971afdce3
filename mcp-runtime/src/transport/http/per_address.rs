//! The standalone server's connections counted per client address, so that
//! one client cannot hold every connection the server keeps open.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::handler::caller::address_key;

/// Connections open from each address (an IPv6 address by its /64), each
/// under a limit.
#[derive(Debug)]
pub(crate) struct PerAddress {
    limit: usize,
    open: Mutex<HashMap<IpAddr, usize>>,
}

/// One connection's place under its address's limit, given back when
/// dropped.
#[derive(Debug)]
pub(crate) struct AddressSlot {
    counts: Arc<PerAddress>,
    key: IpAddr,
}

impl PerAddress {
    pub(crate) fn new(limit: usize) -> Arc<Self> {
        Arc::new(PerAddress { limit, open: Mutex::new(HashMap::new()) })
    }

    fn open(&self) -> MutexGuard<'_, HashMap<IpAddr, usize>> {
        crate::sync::lock(&self.open)
    }

    /// A place for one more connection from `address`, unless it holds
    /// its limit already.
    pub(crate) fn enter(self: &Arc<Self>, address: IpAddr) -> Option<AddressSlot> {
        let key = address_key(address);
        let mut open = self.open();
        let count = open.entry(key).or_insert(0);
        if *count >= self.limit {
            return None;
        }
        *count += 1;
        Some(AddressSlot { counts: Arc::clone(self), key })
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut open = self.counts.open();
        if let Some(count) = open.get_mut(&self.key) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.key);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_address_holds_its_limit_and_gets_its_places_back() {
        let counts = PerAddress::new(2);
        let a: IpAddr = "192.0.2.7".parse().unwrap();
        let first = counts.enter(a).expect("one");
        let _second = counts.enter(a).expect("two");
        assert!(counts.enter(a).is_none(), "a third from the same address");
        assert!(counts.enter("192.0.2.8".parse().unwrap()).is_some(), "another address has its own");
        // One /64 is one host.
        let v6 = PerAddress::new(1);
        let _held = v6.enter("2001:db8::1".parse().unwrap()).expect("one");
        assert!(v6.enter("2001:db8::2".parse().unwrap()).is_none());
        drop(first);
        assert!(counts.enter(a).is_some(), "a place given back");
        drop(_second);
        assert!(counts.open().is_empty(), "an address holding nothing is forgotten");
    }
}
