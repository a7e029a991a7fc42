//! Who may talk to the studio: a request whose `Host` is not one of the server's own
//! addresses, or whose `Origin` (sent by browsers on WebSocket upgrades and cross-site
//! requests) is not a page of the server, is refused with 403, so a web page on another
//! site, or one reached through a rebinding DNS name, cannot read previews or drive edits.
//! Browsers leave `Origin` out of plain `GET`s (an `<img>`, a `no-cors` fetch) but send
//! `Sec-Fetch-Site` on every request: one made by a page of another site, or of another
//! origin on the same site (another local server), is refused too.

use std::net::{IpAddr, SocketAddr};

/// The `Host` values the studio answers to when serving on `addr`.
pub fn allowed_hosts(addr: SocketAddr) -> Vec<String> {
    let port = addr.port();
    let mut hosts = vec![match addr.ip() {
        IpAddr::V4(ip) => format!("{ip}:{port}"),
        IpAddr::V6(ip) => format!("[{ip}]:{port}"),
    }];
    if addr.ip().is_loopback() || addr.ip().is_unspecified() {
        hosts.push(format!("localhost:{port}"));
        hosts.push(format!("127.0.0.1:{port}"));
        hosts.push(format!("[::1]:{port}"));
    }
    hosts.sort();
    hosts.dedup();
    hosts
}

/// Whether a request with these `Host`, `Origin` and `Sec-Fetch-Site` headers may be served.
pub fn allowed(
    host: Option<&str>,
    origin: Option<&str>,
    fetch_site: Option<&str>,
    hosts: &[String],
) -> bool {
    let Some(host) = host else {
        return false;
    };
    // `same-origin`: the studio's own page; `none`: the user opened the address.
    if fetch_site.is_some_and(|f| !matches!(f.trim(), "same-origin" | "none")) {
        return false;
    }
    let host = host.trim().to_ascii_lowercase();
    if !hosts.contains(&host) {
        return false;
    }
    match origin {
        None => true,
        Some(o) => {
            let o = o.trim().to_ascii_lowercase();
            o.strip_prefix("http://")
                .is_some_and(|rest| hosts.iter().any(|h| h == rest))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed4(host: Option<&str>, origin: Option<&str>, hosts: &[String]) -> bool {
        allowed(host, origin, None, hosts)
    }

    #[test]
    fn a_request_made_by_a_page_of_another_origin_is_refused() {
        let hosts = allowed_hosts("127.0.0.1:8080".parse().unwrap());
        let own = Some("127.0.0.1:8080");
        assert!(allowed(own, None, Some("same-origin"), &hosts));
        assert!(allowed(own, None, Some("none"), &hosts));
        assert!(!allowed(own, None, Some("same-site"), &hosts));
        assert!(!allowed(own, None, Some("cross-site"), &hosts));
    }

    #[test]
    fn only_the_server_s_own_names_pass() {
        let hosts = allowed_hosts("127.0.0.1:8080".parse().unwrap());
        assert!(allowed4(Some("127.0.0.1:8080"), None, &hosts));
        assert!(allowed4(
            Some("localhost:8080"),
            Some("http://localhost:8080"),
            &hosts
        ));
        assert!(!allowed4(Some("evil.example:8080"), None, &hosts));
        assert!(!allowed4(Some("127.0.0.1:9999"), None, &hosts));
        assert!(!allowed4(None, None, &hosts));
        assert!(!allowed4(
            Some("127.0.0.1:8080"),
            Some("http://evil.example"),
            &hosts
        ));
        assert!(!allowed4(Some("127.0.0.1:8080"), Some("null"), &hosts));
        assert!(!allowed4(
            Some("127.0.0.1:8080"),
            Some("http://127.0.0.1:8080.evil.example"),
            &hosts
        ));
    }
}
