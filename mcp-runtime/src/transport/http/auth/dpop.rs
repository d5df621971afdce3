//! The DPoP proof of one request (RFC 9449 §7): its one `DPoP` header,
//! checked against the URL the client addressed, as this server is known
//! to it.

use http::HeaderName;
use http::request::Parts;

use crate::auth::Principal;
use crate::auth::dpop::proof::{MAX_PROOF, normalize};
use crate::auth::dpop::{DpopGate, DpopRefusal};
use crate::transport::http::HttpConfig;

/// The request header of the proof.
const DPOP: HeaderName = HeaderName::from_static("dpop");

/// The response header of a server nonce.
pub(super) const DPOP_NONCE: HeaderName = HeaderName::from_static("dpop-nonce");

/// Why a DPoP request is refused.
pub(super) enum Refused {
    /// 401 `invalid_dpop_proof`, with its description.
    Proof(&'static str),
    /// 401 `use_dpop_nonce`, with the nonce to use.
    Nonce(String),
    /// 503: the replay store is out of reach; logged only.
    Unavailable(String),
}

fn invalid(reason: &'static str) -> Refused {
    Refused::Proof(reason)
}

/// Checks the request's proof for `token`, bound to `jkt`, of `caller`.
pub(super) async fn check(
    gate: &DpopGate,
    config: &HttpConfig,
    parts: &Parts,
    (token, jkt): (&str, &str),
    caller: &Principal,
) -> Result<(), Refused> {
    let mut proofs = parts.headers.get_all(DPOP).iter();
    let proof = match (proofs.next(), proofs.next()) {
        (Some(proof), None) => proof,
        (None, _) => return Err(invalid("a DPoP request needs one DPoP header holding its proof")),
        (Some(_), Some(_)) => return Err(invalid("more than one DPoP header")),
    };
    if proof.len() > MAX_PROOF {
        return Err(invalid("the DPoP proof is too large"));
    }
    let proof = proof.to_str().map_err(|_| invalid("the DPoP proof is not a JWS in compact form"))?;
    let url = request_url(config, parts).ok_or_else(|| invalid("the request's URL cannot be told"))?;
    match gate.check(proof, (parts.method.as_str(), &url), (token, jkt), caller).await {
        Ok(()) => Ok(()),
        Err(DpopRefusal::Proof(reason)) => {
            tracing::debug!(reason, "DPoP proof refused");
            Err(invalid(reason))
        }
        Err(DpopRefusal::Nonce(nonce)) => Err(Refused::Nonce(nonce)),
        Err(DpopRefusal::Unavailable(reason)) => Err(Refused::Unavailable(reason)),
    }
}

/// The URL the client addressed, normalized as `htu` is compared: the
/// [public URL](HttpConfig::public_url) when one is set (behind a proxy
/// the request's own scheme, host and path may be the proxy's to the
/// server, not the client's), else the request's scheme (`https` on a
/// server that terminates TLS), host and path.
fn request_url(config: &HttpConfig, parts: &Parts) -> Option<String> {
    if let Some(public) = &config.public_url {
        return normalize(&public.to_string());
    }
    #[cfg(feature = "tls")]
    let tls = config.tls.is_some();
    #[cfg(not(feature = "tls"))]
    let tls = false;
    let scheme = match parts.uri.scheme_str() {
        Some(scheme) => scheme,
        None if tls => "https",
        None => "http",
    };
    let host = match parts.uri.authority() {
        Some(authority) => authority.as_str(),
        None => parts.headers.get(http::header::HOST)?.to_str().ok()?,
    };
    normalize(&format!("{scheme}://{host}{}", parts.uri.path()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(uri: &str, host: Option<&str>) -> Parts {
        let mut request = http::Request::post(uri);
        if let Some(host) = host {
            request = request.header(http::header::HOST, host);
        }
        request.body(()).expect("a request").into_parts().0
    }

    #[test]
    fn the_url_is_the_public_one_else_the_requests_own() {
        let plain = HttpConfig::default();
        assert_eq!(
            request_url(&plain, &parts("/mcp?x=1", Some("127.0.0.1:3000"))).as_deref(),
            Some("http://127.0.0.1:3000/mcp")
        );
        assert_eq!(request_url(&plain, &parts("https://A.test/mcp", None)).as_deref(), Some("https://a.test/mcp"));
        assert_eq!(request_url(&plain, &parts("/mcp", None)), None);
        let public = HttpConfig::default().public_url("https://mcp.example.com/api/mcp");
        assert_eq!(
            request_url(&public, &parts("/mcp", Some("10.0.0.7:3000"))).as_deref(),
            Some("https://mcp.example.com/api/mcp")
        );
    }
}
