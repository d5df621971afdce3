//! Which addresses a document may be fetched from: public ones only.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether `ip` is a public unicast address: none of the special-purpose
/// ranges (RFC 6890 and its updates) where a server's private neighbours
/// live, or that reach them (IPv4 mapped, NAT64, 6to4).
pub(super) fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(ip) => is_public_v4(ip),
        IpAddr::V6(ip) => is_public_v6(ip),
    }
}

/// [`is_public`] of an IPv4 address: outside every range IANA's
/// special-purpose registry lists, reachable from the Internet or not.
fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0 // "this network"
        || a == 10
        || a == 127
        || (a == 100 && (b & 0xc0) == 64) // shared address space (CGNAT), 100.64/10
        || (a == 169 && b == 254) // link-local
        || (a == 172 && (b & 0xf0) == 16)
        || (a == 192 && b == 168)
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2) // TEST-NET-1
        || (a == 192 && b == 88 && c == 99) // 6to4 relay anycast, deprecated
        || (a == 198 && (b & 0xfe) == 18) // benchmarking, 198.18/15
        || (a == 198 && b == 51 && c == 100) // TEST-NET-2
        || (a == 203 && b == 0 && c == 113) // TEST-NET-3
        || a >= 224) // multicast, reserved, broadcast
}

/// [`is_public`] of an IPv6 address: global unicast, outside the special
/// ranges within it, or carrying a public IPv4 address.
fn is_public_v6(ip: Ipv6Addr) -> bool {
    let segments = ip.segments();
    // An IPv4 address carried inside is where the packets go.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        let [_, _, _, _, _, _, high, low] = segments;
        return is_public_v4(Ipv4Addr::from((u32::from(high) << 16) | u32::from(low)));
    }
    if segments[0] == 0x2002 {
        return is_public_v4(Ipv4Addr::from((u32::from(segments[1]) << 16) | u32::from(segments[2])));
    }
    // Global unicast is 2000::/3; outside it are ::, ::1, IPv4-compatible,
    // the local NAT64 prefix, discard-only, unique local fc00::/7,
    // link-local fe80::/10, site-local, multicast ff00::/8.
    let special = match segments {
        // IETF protocol assignments 2001::/23 (Teredo, benchmarking,
        // ORCHID), documentation 2001:db8::/32.
        [0x2001, second, ..] => second < 0x0200 || second == 0x0db8,
        // Documentation, 3fff::/20.
        [first, ..] => (first & 0xfff0) == 0x3ff0,
    };
    (segments[0] & 0xe000) == 0x2000 && !special
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_classified() {
        let table: &[(&str, bool)] = &[
            // IPv4
            ("0.0.0.0", false),
            ("0.1.2.3", false),
            ("10.0.0.3", false),
            ("10.255.255.255", false),
            ("100.63.255.255", true),
            ("100.64.0.1", false),
            ("100.127.255.255", false),
            ("100.128.0.0", true),
            ("127.0.0.1", false),
            ("127.255.0.1", false),
            ("169.254.169.254", false),
            ("172.15.255.255", true),
            ("172.16.0.1", false),
            ("172.31.255.255", false),
            ("172.32.0.0", true),
            ("192.0.0.8", false),
            ("192.0.2.1", false),
            ("192.88.99.1", false),
            ("192.168.1.1", false),
            ("192.169.0.1", true),
            ("198.17.255.255", true),
            ("198.18.0.1", false),
            ("198.19.255.255", false),
            ("198.20.0.0", true),
            ("198.51.100.7", false),
            ("203.0.113.9", false),
            ("224.0.0.1", false),
            ("239.255.255.250", false),
            ("240.0.0.1", false),
            ("255.255.255.255", false),
            ("1.1.1.1", true),
            ("8.8.8.8", true),
            ("93.184.216.34", true),
            ("223.255.255.254", true),
            // IPv6
            ("::", false),
            ("::1", false),
            ("::a00:3", false), // IPv4-compatible, deprecated
            ("fc00::1", false),
            ("fd12:3456::1", false),
            ("fe80::1", false),
            ("febf::1", false),
            ("fec0::1", false),
            ("ff02::1", false),
            ("ff0e::1", false),
            ("2001:db8::1", false),
            ("2001::1", false),   // Teredo
            ("2001:2::1", false), // benchmarking
            ("3fff::1", false),
            ("100::1", false),
            ("64:ff9b:1::1", false),
            ("::ffff:10.0.0.3", false),
            ("::ffff:127.0.0.1", false),
            ("::ffff:169.254.169.254", false),
            ("::ffff:8.8.8.8", true),
            ("64:ff9b::10.0.0.3", false),
            ("64:ff9b::127.0.0.1", false),
            ("64:ff9b::8.8.8.8", true),
            ("2002:0a00:0003::1", false), // 6to4 of 10.0.0.3
            ("2002:0808:0808::1", true),  // 6to4 of 8.8.8.8
            ("2001:4860:4860::8888", true),
            ("2606:4700:4700::1111", true),
            ("2a00:1450::1", true),
        ];
        for (address, public) in table {
            let ip: IpAddr = address.parse().expect("an address");
            assert_eq!(is_public(ip), *public, "{address}");
        }
    }
}
