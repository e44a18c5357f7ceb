//! The addresses the person can pick for the phone's listener: this machine's addresses on its
//! private networks (a home or office LAN) and its Tailscale address. Public addresses are
//! never offered, so the phone page is not put on the internet by a click.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde::Serialize;

/// What kind of network an address is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Network {
    /// A private network: 10/8, 172.16/12, 192.168/16, or IPv6's unique local fc00::/7.
    Lan,
    /// Tailscale's: 100.64/10 or fd7a:115c:a1e0::/48 on its interface.
    Tailscale,
}

/// An address the phone can reach the console by.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reachable {
    pub ip: IpAddr,
    pub interface: String,
    pub network: Network,
}

/// Interfaces of containers and virtual machines, which a phone does not reach.
const VIRTUAL: [&str; 9] = [
    "docker", "br-", "veth", "virbr", "lxc", "cni", "flannel", "podman", "vmnet",
];

/// Which network `ip` on `interface` is on, or `None` when a phone cannot or should not reach
/// the console there (loopback, link-local, public, a container's bridge).
pub fn classify(interface: &str, ip: IpAddr) -> Option<Network> {
    if VIRTUAL.iter().any(|v| interface.starts_with(v)) {
        return None;
    }
    let tailscale_interface = interface.starts_with("tailscale") || interface.starts_with("utun");
    match ip {
        IpAddr::V4(v4) => {
            let cgnat = Ipv4Addr::from(u32::from(v4) & 0xffc0_0000) == Ipv4Addr::new(100, 64, 0, 0);
            if cgnat && tailscale_interface {
                Some(Network::Tailscale)
            } else if v4.is_private() {
                Some(Network::Lan)
            } else {
                None
            }
        }
        IpAddr::V6(v6) => {
            let prefix = |bits: u32, of: Ipv6Addr| {
                let mask = !0u128 << (128 - bits);
                u128::from(v6) & mask == u128::from(of) & mask
            };
            if prefix(48, Ipv6Addr::new(0xfd7a, 0x115c, 0xa1e0, 0, 0, 0, 0, 0))
                && tailscale_interface
            {
                Some(Network::Tailscale)
            } else if prefix(7, Ipv6Addr::new(0xfc00, 0, 0, 0, 0, 0, 0, 0)) {
                Some(Network::Lan)
            } else {
                None
            }
        }
    }
}

/// This machine's addresses a phone can reach, private networks first (IPv4 before IPv6),
/// then Tailscale's.
pub fn reachable() -> Vec<Reachable> {
    let mut found: Vec<Reachable> = interface_addresses()
        .into_iter()
        .filter_map(|(interface, ip)| {
            classify(&interface, ip).map(|network| Reachable {
                ip,
                interface,
                network,
            })
        })
        .collect();
    found.sort_by_key(|r| (r.network == Network::Tailscale, r.ip.is_ipv6(), r.ip));
    found.dedup_by(|a, b| a.ip == b.ip);
    found
}

fn interface_addresses() -> Vec<(String, IpAddr)> {
    interfaces().into_iter().map(|i| (i.name, i.ip)).collect()
}

/// One address of one of this machine's interfaces, with its network's prefix length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    pub name: String,
    pub ip: IpAddr,
    pub prefix: u8,
}

#[cfg(unix)]
fn interfaces() -> Vec<Interface> {
    let Ok(all) = nix::ifaddrs::getifaddrs() else {
        return Vec::new();
    };
    let ip_of = |a: &nix::sys::socket::SockaddrStorage| -> Option<IpAddr> {
        if let Some(v4) = a.as_sockaddr_in() {
            Some(IpAddr::V4(v4.ip()))
        } else {
            Some(IpAddr::V6(a.as_sockaddr_in6()?.ip()))
        }
    };
    all.filter_map(|a| {
        let ip = ip_of(a.address.as_ref()?)?;
        let prefix = a
            .netmask
            .as_ref()
            .and_then(ip_of)
            .map(|m| match m {
                IpAddr::V4(m) => u32::from(m).count_ones(),
                IpAddr::V6(m) => u128::from(m).count_ones(),
            })
            .and_then(|n| u8::try_from(n).ok())
            .unwrap_or(if ip.is_ipv4() { 32 } else { 128 });
        Some(Interface {
            name: a.interface_name,
            ip,
            prefix,
        })
    })
    .collect()
}

#[cfg(not(unix))]
fn interfaces() -> Vec<Interface> {
    Vec::new()
}

/// The network `ip` (one of this machine's addresses) is on: the address and its prefix
/// length; `None` when no interface holds it (any more).
pub fn network_of(ip: IpAddr) -> Option<(IpAddr, u8)> {
    let ip = ip.to_canonical();
    interfaces()
        .into_iter()
        .find(|i| i.ip.to_canonical() == ip)
        .map(|i| (ip, i.prefix))
}

/// Whether `ip` is in Tailscale's ranges (100.64.0.0/10, fd7a:115c:a1e0::/48).
pub fn is_tailnet(ip: IpAddr) -> bool {
    match ip.to_canonical() {
        IpAddr::V4(v4) => u32::from(v4) & 0xffc0_0000 == 0x6440_0000,
        IpAddr::V6(v6) => same_network(
            IpAddr::V6(v6),
            IpAddr::V6(Ipv6Addr::new(0xfd7a, 0x115c, 0xa1e0, 0, 0, 0, 0, 0)),
            48,
        ),
    }
}

/// Whether a phone may pair from `peer`, the listener being on `network` (its address and
/// prefix) or on the tailnet: from another device of the listener's own network, or of the
/// tailnet — never this machine, a container or virtual machine on it, nor a network that is
/// reached through it.
pub fn may_pair_from(peer: IpAddr, network: Option<(IpAddr, u8)>, on_tailnet: bool) -> bool {
    let peer = peer.to_canonical();
    if is_this_machine(peer) {
        return false;
    }
    let same = network.is_some_and(|(listener, prefix)| same_network(listener, peer, prefix));
    same || (on_tailnet && is_tailnet(peer))
}

/// Whether `ip` is this machine itself, or a container or virtual machine on it: one of its
/// own addresses (any interface, loopback included), or an address on the network of one of
/// its containers' or virtual machines' interfaces ([`VIRTUAL`]). A phone paired from there
/// would be one of the machine's own programs, an agent among them.
pub fn is_this_machine(ip: IpAddr) -> bool {
    is_within(ip, &interfaces())
}

/// [`is_this_machine`] against the interfaces given.
pub fn is_within(ip: IpAddr, interfaces: &[Interface]) -> bool {
    let ip = ip.to_canonical();
    if ip.is_loopback() || ip.is_unspecified() {
        return true;
    }
    interfaces.iter().any(|i| {
        let own = i.ip.to_canonical();
        own == ip
            || (VIRTUAL.iter().any(|v| i.name.starts_with(v)) && same_network(own, ip, i.prefix))
    })
}

fn same_network(a: IpAddr, b: IpAddr, prefix: u8) -> bool {
    match (a, b) {
        (IpAddr::V4(a), IpAddr::V4(b)) => {
            let mask = u32::MAX
                .checked_shl(32 - u32::from(prefix.min(32)))
                .unwrap_or(0);
            u32::from(a) & mask == u32::from(b) & mask
        }
        (IpAddr::V6(a), IpAddr::V6(b)) => {
            let mask = u128::MAX
                .checked_shl(128 - u32::from(prefix.min(128)))
                .unwrap_or(0);
            u128::from(a) & mask == u128::from(b) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn private_networks_and_tailscale_are_offered_nothing_else() {
        for (iface, addr, want) in [
            ("wlan0", "192.168.1.20", Some(Network::Lan)),
            ("eth0", "10.0.0.5", Some(Network::Lan)),
            ("enp3s0", "172.20.1.2", Some(Network::Lan)),
            ("wlan0", "fd12:3456::1", Some(Network::Lan)),
            ("tailscale0", "100.101.102.103", Some(Network::Tailscale)),
            ("tailscale0", "fd7a:115c:a1e0::1", Some(Network::Tailscale)),
            // A carrier's shared address space off Tailscale's interface is not Tailscale.
            ("wwan0", "100.64.1.1", None),
            ("lo", "127.0.0.1", None),
            ("lo", "::1", None),
            ("wlan0", "169.254.3.4", None),
            ("wlan0", "fe80::1", None),
            ("eth0", "203.0.113.7", None),
            ("eth0", "2001:db8::7", None),
            ("docker0", "172.17.0.1", None),
            ("br-1a2b", "172.18.0.1", None),
            ("virbr0", "192.168.122.1", None),
        ] {
            assert_eq!(classify(iface, ip(addr)), want, "{iface} {addr}");
        }
    }

    #[test]
    fn this_machine_and_its_containers_are_told_from_other_devices() {
        let iface = |name: &str, addr: &str, prefix: u8| Interface {
            name: name.into(),
            ip: ip(addr),
            prefix,
        };
        let here = [
            iface("lo", "127.0.0.1", 8),
            iface("wlan0", "192.168.1.20", 24),
            iface("wlan0", "fd12::20", 64),
            iface("docker0", "172.17.0.1", 16),
            iface("virbr0", "192.168.122.1", 24),
            iface("veth12ab", "10.200.0.1", 30),
        ];
        for (addr, local) in [
            ("127.0.0.1", true),
            ("127.9.9.9", true),
            ("::1", true),
            ("::ffff:127.0.0.1", true),
            ("0.0.0.0", true),
            ("192.168.1.20", true),
            ("::ffff:192.168.1.20", true),
            ("fd12::20", true),
            ("172.17.0.5", true),
            ("192.168.122.44", true),
            ("10.200.0.2", true),
            // Other devices on the LAN, on Tailscale, anywhere.
            ("192.168.1.21", false),
            ("fd12::21", false),
            ("100.101.102.103", false),
            ("10.200.0.6", false),
        ] {
            assert_eq!(is_within(ip(addr), &here), local, "{addr}");
        }
    }

    #[test]
    fn a_phone_pairs_from_the_listeners_own_network_or_the_tailnet() {
        let lan = Some((ip("192.168.1.20"), 24));
        assert!(same_network(ip("192.168.1.20"), ip("192.168.1.77"), 24));
        assert!(!same_network(ip("192.168.1.20"), ip("192.168.2.77"), 24));
        assert!(!same_network(ip("192.168.1.20"), ip("fd00::1"), 24));
        // These need no interface of this machine's: only the rule.
        let other = |peer: &str, network: Option<(IpAddr, u8)>, tailnet: bool| {
            let peer = ip(peer);
            !is_within(peer, &[]) && {
                let same = network.is_some_and(|(l, p)| same_network(l, peer, p));
                same || (tailnet && is_tailnet(peer))
            }
        };
        assert!(other("192.168.1.77", lan, false));
        assert!(
            !other("192.168.2.77", lan, false),
            "another network, routed through"
        );
        assert!(!other("172.17.0.2", lan, false), "a container's");
        assert!(
            !other("100.101.102.103", lan, false),
            "the tailnet, when not listening there"
        );
        assert!(other("100.101.102.103", Some((ip("100.64.0.9"), 32)), true));
        assert!(other(
            "fd7a:115c:a1e0::5",
            Some((ip("100.64.0.9"), 32)),
            true
        ));
        assert!(!other("8.8.8.8", Some((ip("100.64.0.9"), 32)), true));
        assert!(!other("127.0.0.1", lan, false));
        // No network known for the listener (its address is gone): nowhere.
        assert!(!other("192.168.1.77", None, false));
        assert!(!may_pair_from(ip("127.0.0.1"), lan, true));
    }

    #[test]
    fn this_machine_offers_no_loopback_or_public_address() {
        for r in reachable() {
            assert!(!r.ip.is_loopback(), "{r:?}");
            assert!(classify(&r.interface, r.ip).is_some(), "{r:?}");
        }
    }
}
