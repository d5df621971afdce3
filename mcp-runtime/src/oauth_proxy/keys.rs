//! The front's signing key: an ES256 key made on first use and kept in
//! the store, so that replicas sharing the store sign and verify with the
//! same one; its public half is the front's key set.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
use serde_json::{Map, Value, json};

use super::store::{ProxyStore, StoreError};
use crate::auth::{KeySet, LocalKeys, Rejection};
use crate::handler::BoxFuture;

/// Where the key is kept.
const KEY: &str = "signing-key";

/// The key, ready to sign and to verify.
pub(crate) struct SigningKey {
    kid: String,
    encoding: EncodingKey,
    /// The public key as a JWK, for the key set.
    pub(crate) jwk: Value,
    set: Arc<KeySet>,
}

/// What the store holds: the key in PKCS#8, base64.
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    pkcs8: String,
}

impl SigningKey {
    fn from_pkcs8(pkcs8: &[u8]) -> Result<Self, String> {
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8, &SystemRandom::new())
            .map_err(|e| format!("the stored signing key cannot be read: {e}"))?;
        // An uncompressed P-256 point: 0x04, x, y.
        let point = pair.public_key().as_ref();
        let (x, y) = (URL_SAFE_NO_PAD.encode(&point[1..33]), URL_SAFE_NO_PAD.encode(&point[33..65]));
        let mut jwk = json!({"kty": "EC", "crv": "P-256", "x": x, "y": y});
        let kid = crate::auth::dpop::proof::thumbprint(&jwk).ok_or("no thumbprint")?;
        jwk["kid"] = kid.clone().into();
        jwk["alg"] = "ES256".into();
        jwk["use"] = "sig".into();
        let decoding = DecodingKey::from_ec_components(&x, &y).map_err(|e| e.to_string())?;
        Ok(SigningKey {
            set: Arc::new(KeySet::local(kid.clone(), Algorithm::ES256, decoding)),
            kid,
            encoding: EncodingKey::from_ec_der(pkcs8),
            jwk,
        })
    }

    /// `claims` signed as an access token (RFC 9068).
    pub(crate) fn sign(&self, claims: &Map<String, Value>) -> Result<String, String> {
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("at+jwt".to_owned());
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding).map_err(|e| e.to_string())
    }
}

/// The key of one front, read or made once.
#[derive(Clone)]
pub(crate) struct Keys {
    store: Arc<dyn ProxyStore>,
    current: Arc<tokio::sync::OnceCell<Arc<SigningKey>>>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys").finish_non_exhaustive()
    }
}

impl Keys {
    pub(crate) fn new(store: Arc<dyn ProxyStore>) -> Self {
        Keys { store, current: Arc::default() }
    }

    /// The key: the store's, or a new one put there, unless another
    /// replica put one first.
    pub(crate) async fn key(&self) -> Result<Arc<SigningKey>, StoreError> {
        let key = self
            .current
            .get_or_try_init(|| async {
                if let Some(stored) = self.store.get(KEY).await? {
                    return read(&stored);
                }
                let made = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                    .map_err(|e| StoreError(format!("no signing key could be made: {e}")))?;
                let stored = serde_json::to_string(&Stored { pkcs8: STANDARD.encode(made.as_ref()) })
                    .map_err(|e| StoreError(e.to_string()))?;
                if self.store.put_new(KEY, &stored, None).await? {
                    return read(&stored);
                }
                let theirs = self.store.get(KEY).await?.ok_or_else(|| StoreError("the signing key vanished".into()))?;
                read(&theirs)
            })
            .await?;
        Ok(Arc::clone(key))
    }
}

fn read(stored: &str) -> Result<Arc<SigningKey>, StoreError> {
    let stored: Stored = serde_json::from_str(stored).map_err(|e| StoreError(format!("the signing key: {e}")))?;
    let pkcs8 = STANDARD.decode(stored.pkcs8).map_err(|e| StoreError(format!("the signing key: {e}")))?;
    SigningKey::from_pkcs8(&pkcs8).map(Arc::new).map_err(StoreError)
}

impl LocalKeys for Keys {
    fn key_set(&self) -> BoxFuture<'_, Result<Arc<KeySet>, Rejection>> {
        Box::pin(async move {
            match self.key().await {
                Ok(key) => Ok(Arc::clone(&key.set)),
                Err(error) => Err(Rejection::Unavailable(error.to_string())),
            }
        })
    }
}

/// Seconds since the epoch.
pub(crate) fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oauth_proxy::MemoryProxyStore;

    #[tokio::test]
    async fn two_replicas_of_one_store_sign_with_one_key() {
        let store: Arc<dyn ProxyStore> = Arc::new(MemoryProxyStore::new());
        let (a, b) = (Keys::new(Arc::clone(&store)), Keys::new(store));
        let (one, two) = (a.key().await.unwrap(), b.key().await.unwrap());
        assert_eq!(one.jwk, two.jwk);
        let Value::Object(claims) =
            json!({"sub": "alice", "iss": "https://front", "aud": "https://mcp", "exp": now() + 60})
        else {
            unreachable!()
        };
        let token = one.sign(&claims).unwrap();
        let validation = crate::auth::jwt_validation(Algorithm::ES256, "https://front", "https://mcp");
        let set = b.key_set().await.unwrap();
        let key = set.candidates(Some(&two.kid), Algorithm::ES256).next().expect("the key");
        assert!(jsonwebtoken::decode::<Map<String, Value>>(&token, &key.key, &validation).is_ok());
    }
}
