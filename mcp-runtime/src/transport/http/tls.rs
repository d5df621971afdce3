//! TLS for the standalone server (`tls` feature): a certificate chain and
//! its key from PEM files, read again when either file changes (checked
//! at most once a second, at a handshake), so that a renewed certificate is
//! served without a restart; ALPN offers HTTP/2 and HTTP/1.1.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime};

use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

/// How often, at most, the files are looked at for a change.
const CHECK_EVERY: Duration = Duration::from_secs(1);

/// Where the certificate chain and its private key are (PEM).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsFiles {
    pub(crate) cert: PathBuf,
    pub(crate) key: PathBuf,
}

/// The rustls acceptor for `files`; an error names the file that does not
/// read.
pub(crate) fn acceptor(files: &TlsFiles) -> io::Result<tokio_rustls::TlsAcceptor> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let resolver = Reloading::new(files.clone(), Arc::clone(&provider))?;
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(io::Error::other)?
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(resolver));
    config.alpn_protocols =
        if cfg!(feature = "http2") { vec![b"h2".to_vec(), b"http/1.1".to_vec()] } else { vec![b"http/1.1".to_vec()] };
    Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
}

/// The certificate served, read again when its files change.
#[derive(Debug)]
struct Reloading {
    files: TlsFiles,
    provider: Arc<CryptoProvider>,
    current: RwLock<Loaded>,
}

#[derive(Debug)]
struct Loaded {
    key: Arc<CertifiedKey>,
    /// The files' modification times when read.
    stamp: (Option<SystemTime>, Option<SystemTime>),
    checked: Instant,
}

impl Reloading {
    fn new(files: TlsFiles, provider: Arc<CryptoProvider>) -> io::Result<Self> {
        let stamp = stamp(&files);
        let key = load(&files, &provider)?;
        Ok(Reloading { files, provider, current: RwLock::new(Loaded { key, stamp, checked: Instant::now() }) })
    }

    /// Reads the files again if they changed since they were read; a
    /// change that does not read is logged and the old certificate kept.
    fn refresh(&self) {
        let due = self.current.read().unwrap_or_else(|e| e.into_inner()).checked.elapsed() >= CHECK_EVERY;
        if !due {
            return;
        }
        let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
        current.checked = Instant::now();
        let stamp = stamp(&self.files);
        if stamp == current.stamp {
            return;
        }
        match load(&self.files, &self.provider) {
            Ok(key) => {
                tracing::info!(cert = %self.files.cert.display(), "the TLS certificate changed: serving the new one");
                current.key = key;
                current.stamp = stamp;
            }
            // Half-written files read again at the next check.
            Err(e) => {
                tracing::warn!(error = %e, "the TLS certificate changed but does not read: still serving the old one")
            }
        }
    }
}

impl ResolvesServerCert for Reloading {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        self.refresh();
        Some(Arc::clone(&self.current.read().unwrap_or_else(|e| e.into_inner()).key))
    }
}

fn stamp(files: &TlsFiles) -> (Option<SystemTime>, Option<SystemTime>) {
    let modified = |path: &Path| std::fs::metadata(path).and_then(|m| m.modified()).ok();
    (modified(&files.cert), modified(&files.key))
}

fn load(files: &TlsFiles, provider: &CryptoProvider) -> io::Result<Arc<CertifiedKey>> {
    let unreadable = |path: &Path, what: &str, e: &dyn std::fmt::Display| {
        io::Error::new(io::ErrorKind::InvalidInput, format!("{}: {what}: {e}", path.display()))
    };
    let certs = CertificateDer::pem_file_iter(&files.cert)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| unreadable(&files.cert, "not a PEM certificate chain", &e))?;
    if certs.is_empty() {
        return Err(unreadable(&files.cert, "no certificate", &"the file holds no CERTIFICATE block"));
    }
    let key =
        PrivateKeyDer::from_pem_file(&files.key).map_err(|e| unreadable(&files.key, "not a PEM private key", &e))?;
    let key = CertifiedKey::from_der(certs, key, provider)
        .map_err(|e| unreadable(&files.key, "not the key of the certificate", &e))?;
    Ok(Arc::new(key))
}
