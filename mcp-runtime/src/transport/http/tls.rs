//! TLS for the standalone server (`tls` feature): a certificate chain and
//! its key from PEM files, read again when what they hold changes, so that
//! a renewed certificate is served without a restart; ALPN offers HTTP/2
//! and HTTP/1.1.
//!
//! The files are read once before anything is served, then looked at once
//! a second by a task of their own, which reads them on Tokio's blocking
//! pool and puts the new key in place when their bytes differ from those
//! last looked at (a digest of both files: a modification time may not
//! move, as when a copy keeps it or a write lands within the clock's last
//! tick). A handshake only takes the key in place: no file is touched on a
//! runtime worker while connections wait.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock, Weak};
use std::time::Duration;

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use sha2::{Digest as _, Sha256};

/// How often the files are looked at for a change.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Where the certificate chain and its private key are (PEM).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsFiles {
    pub(crate) cert: PathBuf,
    pub(crate) key: PathBuf,
}

/// The rustls acceptor for `files`; an error names the file that does not
/// read. Called within the Tokio runtime that serves: the task that looks
/// at the files for a change runs there, until the acceptor and every
/// connection made through it are gone.
pub(crate) fn acceptor(files: &TlsFiles) -> io::Result<tokio_rustls::TlsAcceptor> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    // Read before anything is served, once: the server does not start without them.
    let contents = Contents::read(files)?;
    let served = Arc::new(Served { key: RwLock::new(contents.certified(files, &provider)?) });
    watch(files.clone(), Arc::clone(&provider), Arc::downgrade(&served), contents.digest);
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(io::Error::other)?
        .with_no_client_auth()
        .with_cert_resolver(served);
    config.alpn_protocols =
        if cfg!(feature = "http2") { vec![b"h2".to_vec(), b"http/1.1".to_vec()] } else { vec![b"http/1.1".to_vec()] };
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// The key served now: what a handshake takes, and what the watching task
/// replaces.
#[derive(Debug)]
struct Served {
    key: RwLock<Arc<CertifiedKey>>,
}

impl ResolvesServerCert for Served {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.key.read().unwrap_or_else(PoisonError::into_inner)))
    }
}

/// Looks at `files` every [`CHECK_EVERY`] until `served` is gone (the
/// server stopped and its last connection closed), and serves what they
/// hold once it differs from what was last looked at (`seen`, a digest)
/// and reads as a certificate and its key. A change that does not read is
/// logged and the old certificate kept; the files are read again as soon
/// as they change again (a half-written file, a new certificate whose new
/// key is not there yet).
fn watch(files: TlsFiles, provider: Arc<CryptoProvider>, served: Weak<Served>, mut seen: [u8; 32]) {
    tokio::spawn(async move {
        let mut every = tokio::time::interval(CHECK_EVERY);
        every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // The first tick is at once: the files were just read.
        every.tick().await;
        // A failure to read the files is logged once, not each second.
        let mut unreadable = false;
        loop {
            every.tick().await;
            if served.strong_count() == 0 {
                return;
            }
            let (looking, provider) = (files.clone(), Arc::clone(&provider));
            let looked = tokio::task::spawn_blocking(move || -> Looked {
                let contents = Contents::read(&looking)?;
                if contents.digest == seen {
                    return Ok(None);
                }
                let certified = contents.certified(&looking, &provider);
                Ok(Some((contents.digest, certified)))
            })
            .await;
            let looked = match looked {
                Ok(looked) => looked,
                // Only when the runtime shuts down (the closure does not panic).
                Err(_) => return,
            };
            match looked {
                Ok(None) => unreadable = false,
                Ok(Some((digest, certified))) => {
                    unreadable = false;
                    seen = digest;
                    let Some(served) = served.upgrade() else { return };
                    match certified {
                        Ok(key) => {
                            tracing::info!(cert = %files.cert.display(), "the TLS certificate changed: serving the new one");
                            *served.key.write().unwrap_or_else(PoisonError::into_inner) = key;
                        }
                        Err(e) => tracing::warn!(
                            error = %e,
                            "the TLS certificate changed but does not read: still serving the old one"
                        ),
                    }
                }
                Err(e) if !unreadable => {
                    unreadable = true;
                    tracing::warn!(error = %e, "the TLS certificate files do not read: still serving the old one");
                }
                Err(_) => {}
            }
        }
    });
}

/// What a look at the files found: `None` when they hold what they held,
/// else their digest and what they read as; an error when they do not read
/// at all.
type Looked = io::Result<Option<([u8; 32], io::Result<Arc<CertifiedKey>>)>>;

/// The bytes of both files, and their digest.
struct Contents {
    cert: Vec<u8>,
    key: Vec<u8>,
    digest: [u8; 32],
}

impl Contents {
    fn read(files: &TlsFiles) -> io::Result<Contents> {
        let read = |path: &Path| std::fs::read(path).map_err(|e| unreadable(path, "cannot be read", &e));
        let (cert, key) = (read(&files.cert)?, read(&files.key)?);
        // The certificate's length first: where one file ends and the other begins.
        let digest = Sha256::new()
            .chain_update((cert.len() as u64).to_le_bytes())
            .chain_update(&cert)
            .chain_update(&key)
            .finalize()
            .into();
        Ok(Contents { cert, key, digest })
    }

    /// The certificate chain and its key, checked to belong together.
    fn certified(&self, files: &TlsFiles, provider: &CryptoProvider) -> io::Result<Arc<CertifiedKey>> {
        let certs = CertificateDer::pem_slice_iter(&self.cert)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| unreadable(&files.cert, "not a PEM certificate chain", &e))?;
        if certs.is_empty() {
            return Err(unreadable(&files.cert, "no certificate", &"the file holds no CERTIFICATE block"));
        }
        let key = PrivateKeyDer::from_pem_slice(&self.key)
            .map_err(|e| unreadable(&files.key, "not a PEM private key", &e))?;
        let key = CertifiedKey::from_der(certs, key, provider)
            .map_err(|e| unreadable(&files.key, "not the key of the certificate", &e))?;
        Ok(Arc::new(key))
    }
}

fn unreadable(path: &Path, what: &str, e: &dyn std::fmt::Display) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, format!("{}: {what}: {e}", path.display()))
}
