//! The client's address, for rate limits and the audit log: the socket peer, or behind trusted
//! proxies (`TRUST_PROXY=1`) the rightmost forwarded hop that is not a trusted proxy. The leftmost
//! `X-Forwarded-For` entries are whatever the client wrote, so they are never taken on trust.

use std::net::IpAddr;

use axum::http::HeaderMap;

use crate::config::Config;

/// An address block (`10.0.0.0/8`, `2001:db8::/32`, or one address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Net {
    addr: IpAddr,
    prefix: u8,
}

impl Net {
    /// Parses `ip` or `ip/prefix`.
    pub fn parse(s: &str) -> Option<Net> {
        let s = s.trim();
        let (addr, prefix) = match s.split_once('/') {
            Some((a, p)) => (a.parse::<IpAddr>().ok()?, Some(p.parse::<u8>().ok()?)),
            None => (s.parse::<IpAddr>().ok()?, None),
        };
        let addr = addr.to_canonical();
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = prefix.unwrap_or(max);
        (prefix <= max).then_some(Net { addr, prefix })
    }

    /// Whether `ip` lies in this block.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip.to_canonical()) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(net) & mask == u32::from(ip) & mask
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(net) & mask == u128::from(ip) & mask
            }
            _ => false,
        }
    }
}

/// Parses `TRUSTED_PROXIES`, refusing an entry that is not an address or a block.
pub fn parse_trusted(entries: &[String]) -> anyhow::Result<Vec<Net>> {
    entries
        .iter()
        .filter(|e| !e.trim().is_empty())
        .map(|e| {
            Net::parse(e).ok_or_else(|| {
                anyhow::anyhow!("TRUSTED_PROXIES: not an address or CIDR block: {e:?}")
            })
        })
        .collect()
}

/// Reads one forwarded hop: `1.2.3.4`, `1.2.3.4:5678`, `2001:db8::1` or `[2001:db8::1]:443`.
fn parse_hop(s: &str) -> Option<IpAddr> {
    let s = s.trim().trim_matches('"');
    if let Ok(ip) = s.parse::<IpAddr>() {
        return Some(ip.to_canonical());
    }
    if let Ok(sa) = s.parse::<std::net::SocketAddr>() {
        return Some(sa.ip().to_canonical());
    }
    None
}

/// The client's address. Forwarding headers count only with `TRUST_PROXY=1` and, when
/// `TRUSTED_PROXIES` is set, only from a peer in it. Then `CLIENT_IP_HEADER` (when set) names
/// the address; otherwise `X-Forwarded-For` is read from the right, skipping trusted proxies,
/// and the first other hop is the client. A hop that cannot be read ends the walk at the last
/// trusted address (the peer when nothing else is trusted).
pub fn client_addr(config: &Config, peer: Option<IpAddr>, headers: &HeaderMap) -> Option<IpAddr> {
    let peer = peer.map(|p| p.to_canonical());
    if !config.trust_proxy {
        return peer;
    }
    let trusted: Vec<Net> = config
        .trusted_proxies
        .iter()
        .filter_map(|e| Net::parse(e))
        .collect();
    let is_trusted = |ip: IpAddr| trusted.iter().any(|n| n.contains(ip));
    if !trusted.is_empty() && !peer.is_some_and(is_trusted) {
        return peer;
    }
    if let Some(name) = config
        .client_ip_header
        .as_deref()
        .filter(|n| !n.trim().is_empty())
    {
        // The proxy sets (overwrites) this header; if a list arrives, the last value is its own.
        return headers
            .get_all(name.trim())
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .next_back()
            .and_then(parse_hop)
            .or(peer);
    }
    let hops: Vec<&str> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .collect();
    let mut client = peer;
    for hop in hops.iter().rev() {
        let Some(ip) = parse_hop(hop) else {
            break;
        };
        client = Some(ip);
        // Without a list only the peer is trusted: the rightmost hop is what it saw.
        if trusted.is_empty() || !is_trusted(ip) {
            break;
        }
    }
    client
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(xff: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", xff.parse().unwrap());
        h
    }

    #[test]
    fn blocks_contain_their_addresses() {
        let n = Net::parse("10.1.0.0/16").unwrap();
        assert!(n.contains("10.1.200.3".parse().unwrap()));
        assert!(!n.contains("10.2.0.1".parse().unwrap()));
        assert!(n.contains("::ffff:10.1.0.9".parse().unwrap()));
        assert!(
            Net::parse("0.0.0.0/0")
                .unwrap()
                .contains("8.8.8.8".parse().unwrap())
        );
        assert!(
            Net::parse("2001:db8::/32")
                .unwrap()
                .contains("2001:db8::5".parse().unwrap())
        );
        assert_eq!(Net::parse("10.0.0.0/33"), None);
        assert_eq!(Net::parse("proxy"), None);
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let peer = Some("10.0.0.2".parse().unwrap());
        let mut c = Config::for_tests(".".into(), None);
        let h = headers("1.1.1.1, 2.2.2.2:5000");
        assert_eq!(client_addr(&c, peer, &h), peer, "no TRUST_PROXY");
        c.trust_proxy = true;
        assert_eq!(client_addr(&c, peer, &h), Some("2.2.2.2".parse().unwrap()));
        c.trusted_proxies = vec!["10.0.0.0/8".into(), "2.2.2.0/24".into()];
        assert_eq!(client_addr(&c, peer, &h), Some("1.1.1.1".parse().unwrap()));
        let outsider = Some("192.0.2.1".parse().unwrap());
        assert_eq!(client_addr(&c, outsider, &h), outsider, "peer not a proxy");
        let h = headers("[2001:db8::7]:443");
        assert_eq!(
            client_addr(&c, peer, &h),
            Some("2001:db8::7".parse().unwrap())
        );
    }
}
