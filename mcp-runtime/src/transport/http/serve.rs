//! The standalone server: binding, the accept loop with its connection
//! limit, and graceful shutdown.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use http::{Request, StatusCode};
use hyper::body::Incoming;
use hyper::server::conn::http1;
#[cfg(feature = "http2")]
use hyper::server::conn::http2;
#[cfg(feature = "http2")]
use hyper_util::rt::TokioExecutor;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::{GracefulShutdown, Watcher};
use tokio::net::{TcpListener, ToSocketAddrs};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::HttpConfig;
use super::cors::{Cors, WithCors};
use super::idle::{Activity, IdleLimited, TrackedBody, TrackedFuture};
use super::per_address::PerAddress;
use super::protocol::{self, Protocol};
use super::service::{McpService, ResponseFuture};
use super::stall::StallGuard;
use crate::server::Server;
use crate::transport::http::responses::transport_error;

/// The MCP service at one path, and the probes when they are on, for one
/// connection; every other path is 404.
#[derive(Clone)]
struct Endpoint {
    path: Arc<str>,
    service: McpService,
    activity: Arc<Activity>,
    /// `None` unless [`HttpConfig::cors`] is on.
    cors: Option<Arc<Cors>>,
    /// The client's address, which the service gives to the requests that
    /// ask who calls.
    peer: SocketAddr,
}

impl hyper::service::Service<Request<Incoming>> for Endpoint {
    type Response = http::Response<TrackedBody>;
    type Error = Infallible;
    type Future = WithCors<TrackedFuture>;

    fn call(&self, request: Request<Incoming>) -> WithCors<TrackedFuture> {
        let in_progress = self.activity.begin();
        let path = request.uri().path();
        if path != &*self.path
            && (self.service.is_health_path(path)
                || self.service.is_card_path(path)
                || self.service.is_oauth_proxy_path(path))
        {
            // Probes get no CORS headers: they are for balancers, not
            // pages; the card, the catalog and the authorization server
            // carry their own.
            return WithCors::new(TrackedFuture::new(self.service.handle_from(request, self.peer), in_progress), None);
        }
        let mut grant =
            self.cors.as_ref().and_then(|cors| Some(Box::new((Arc::clone(cors), cors.allowed_origin(&request)?))));
        let response = if request.uri().path() == &*self.path || self.service.is_metadata_path(request.uri().path()) {
            match grant.as_deref().and_then(|(cors, origin)| cors.preflight(&request, origin)) {
                Some(preflight) => {
                    grant = None;
                    ResponseFuture::ready(preflight)
                }
                None => self.service.handle_from(request, self.peer),
            }
        } else {
            let message = format!("Not found: the MCP endpoint is {}", self.path);
            ResponseFuture::ready(transport_error(StatusCode::NOT_FOUND, message))
        };
        WithCors::new(TrackedFuture::new(response, in_progress), grant)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "http")))]
impl Server {
    /// Serves Streamable HTTP on `addr` (such as `"127.0.0.1:3000"`) at
    /// `/mcp` with the default [`HttpConfig`], until SIGINT or SIGTERM;
    /// requests in flight then get [`HttpConfig::shutdown_grace`] to finish.
    ///
    /// Bound to a loopback address, the server only answers requests whose
    /// `Host` (and `Origin`, when sent) is `localhost`, `127.0.0.1` or
    /// `[::1]`. Errors only when the address cannot be bound. Once bound it
    /// logs `serving MCP over HTTP` (INFO, through `tracing`) with the
    /// `address` it holds: given port 0, the port the system chose.
    ///
    /// With `--dump-catalog` on the command line (or
    /// [`ServerBuilder::dump_catalog`](crate::ServerBuilder::dump_catalog)) it
    /// writes the catalog snapshot and returns at once instead, binding
    /// nothing ([`answer_catalog_dump`](Self::answer_catalog_dump)).
    pub async fn serve_http(self, addr: impl ToSocketAddrs) -> io::Result<()> {
        self.serve_http_with(addr, HttpConfig::default()).await
    }

    /// [`serve_http`](Self::serve_http) with settings (and the same
    /// [`ServerBuilder::dump_catalog`](crate::ServerBuilder::dump_catalog)).
    pub async fn serve_http_with(self, addr: impl ToSocketAddrs, config: HttpConfig) -> io::Result<()> {
        if self.answer_catalog_dump()? {
            return Ok(());
        }
        let listener = TcpListener::bind(addr).await?;
        self.serve_http_with_shutdown(listener, config, shutdown_signal()).await
    }

    /// Serves on a bound listener until `shutdown` completes, then stops
    /// accepting, lets requests in flight finish (for at most
    /// [`HttpConfig::shutdown_grace`]) and returns. Unlike
    /// [`serve_http`](Self::serve_http) it never writes a catalog
    /// ([`ServerBuilder::dump_catalog`](crate::ServerBuilder::dump_catalog)
    /// is ignored): it is for embedding and tests. Bind to port 0 to let
    /// the system pick a free port and read it from the listener first:
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// use mcp_runtime::Server;
    /// use mcp_runtime::transport::http::HttpConfig;
    ///
    /// let server = Server::builder("demo", "1.0.0").build().unwrap();
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// let addr = listener.local_addr().unwrap();
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// let serving = tokio::spawn(server.serve_http_with_shutdown(listener, HttpConfig::default(), async {
    ///     let _ = stopped.await;
    /// }));
    /// // ... POST to http://{addr}/mcp ...
    /// # let _ = addr;
    /// stop.send(()).unwrap();
    /// serving.await.unwrap().unwrap();
    /// # });
    /// ```
    pub async fn serve_http_with_shutdown(
        self,
        listener: TcpListener,
        config: HttpConfig,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<()> {
        let bound = listener.local_addr()?;
        // The address actually bound (port 0 becomes the system's choice):
        // what an operator, a script or a test reads to reach the server.
        tracing::info!(address = %bound, endpoint = %config.endpoint, "serving MCP over HTTP");
        let loopback = bound.ip().is_loopback();
        let server = self.clone();
        let path: Arc<str> = Arc::from(config.endpoint.as_str());
        let sessions = self.eras().serves_sessions();
        let cors = config.cors.then(|| Arc::new(Cors::new(config.origin.clone().resolve(Some(loopback)), sessions)));
        let service = McpService::new(self, config.clone(), Some(loopback));
        // HTTP/1.1 and HTTP/2 on the same port, which each connection
        // speaks decided once (`protocol.rs`).
        let mut h1 = http1::Builder::new();
        // hyper's header-read timeout would arm a timer per request;
        // `IdleLimited` does that job with one per connection.
        h1.header_read_timeout(None).max_header_size(config.max_header_bytes);
        #[cfg(feature = "http2")]
        let h2 = {
            let mut h2 = http2::Builder::new(TokioExecutor::new());
            h2.max_header_list_size(u32::try_from(config.max_header_bytes).unwrap_or(u32::MAX))
                .max_concurrent_streams(config.http2_max_concurrent_streams);
            h2
        };
        let http = Arc::new(Builders {
            h1,
            #[cfg(feature = "http2")]
            h2,
        });
        // Read before anything is served: a certificate that does not read stops the server.
        #[cfg(feature = "tls")]
        let tls = config.tls.as_ref().map(super::tls::acceptor).transpose()?;
        let graceful = GracefulShutdown::new();
        let permits = Arc::new(Semaphore::new(config.max_connections));
        let per_address = config.connections_per_address().map(PerAddress::new);
        let mut connections = JoinSet::new();
        // Readiness turns 503 first; the server keeps serving through the
        // drain, so that balancers see it and send nothing new, then stops.
        let draining = service.clone();
        let drain = config.shutdown_drain;
        let mut shutdown = pin!(async move {
            shutdown.await;
            draining.drain();
            if !drain.is_zero() {
                tracing::info!(drain_seconds = drain.as_secs_f64(), "shutdown begins: not ready, draining");
                tokio::time::sleep(drain).await;
            }
        });

        loop {
            while connections.try_join_next().is_some() {}
            let permit = tokio::select! {
                () = &mut shutdown => break,
                permit = Arc::clone(&permits).acquire_owned() => match permit {
                    Ok(permit) => permit,
                    Err(_) => break,
                },
            };
            let stream = tokio::select! {
                () = &mut shutdown => break,
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(e) => {
                        // Usually a client that left before being accepted,
                        // or too many open files: pause, then go on.
                        tracing::warn!(error = %e, "accepting a connection failed");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            let (stream, peer) = stream;
            // Closed at once: one client does not get to hold every connection.
            let address_slot = match &per_address {
                None => None,
                Some(counts) => match counts.enter(peer.ip()) {
                    Some(slot) => Some(slot),
                    None => {
                        tracing::debug!(%peer, "a connection over its address's limit was closed");
                        continue;
                    }
                },
            };
            // Events are small and must not wait for more bytes.
            let _ = stream.set_nodelay(true);
            let activity = Activity::new();
            let endpoint = Endpoint {
                path: Arc::clone(&path),
                service: service.clone(),
                activity: Arc::clone(&activity),
                cors: cors.clone(),
                peer,
            };
            let limits = Limits { write: config.write_timeout, idle: config.header_read_timeout };
            let (http, watcher) = (Arc::clone(&http), graceful.watcher());
            #[cfg(feature = "tls")]
            if let Some(tls) = &tls {
                // The handshake in the connection's task, never in the accept loop,
                // within the time a request head may take.
                let tls = tls.clone();
                connections.spawn(async move {
                    match tokio::time::timeout(limits.idle, tls.accept(stream)).await {
                        Ok(Ok(stream)) => {
                            let protocol = protocol::negotiated(stream.get_ref().1.alpn_protocol());
                            http.serve(protocol, stream, endpoint, (watcher, activity, limits)).await;
                        }
                        Ok(Err(e)) => tracing::debug!(error = %e, "a TLS handshake failed"),
                        Err(_) => tracing::debug!("a TLS handshake did not finish in time"),
                    }
                    drop((permit, address_slot));
                });
                continue;
            }
            connections.spawn(async move {
                match protocol::sniff(&stream, limits.idle).await {
                    Some(protocol) => http.serve(protocol, stream, endpoint, (watcher, activity, limits)).await,
                    None => tracing::debug!("connection closed before it said anything"),
                }
                drop((permit, address_slot));
            });
        }

        drop(listener);
        tracing::info!(in_flight = graceful.count(), "shutting down");
        // Listen streams never end by themselves: close them with their result.
        server.close_streams();
        if tokio::time::timeout(config.shutdown_grace, graceful.shutdown()).await.is_err() {
            tracing::warn!("connections still busy at the end of the shutdown grace period were closed");
        }
        connections.shutdown().await;
        Ok(())
    }
}

/// The time limits of one connection.
#[derive(Clone, Copy)]
struct Limits {
    /// Without write progress, the connection is closed (`StallGuard`).
    write: std::time::Duration,
    /// Waiting for a request, the connection is closed (`IdleLimited`).
    idle: std::time::Duration,
}

/// hyper's servers of each protocol, as configured.
struct Builders {
    h1: http1::Builder,
    #[cfg(feature = "http2")]
    h2: http2::Builder<TokioExecutor>,
}

impl Builders {
    /// Serves `io` in `protocol` until it ends, watched for shutdown.
    async fn serve<I>(
        &self,
        protocol: Protocol,
        io: I,
        endpoint: Endpoint,
        (watcher, activity, limits): (Watcher, Arc<Activity>, Limits),
    ) where
        I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        let io = StallGuard::new(TokioIo::new(io), limits.write);
        match protocol {
            #[cfg(feature = "http2")]
            Protocol::Http2 => {
                let connection = watcher.watch(self.h2.serve_connection(io, endpoint));
                ended(IdleLimited::new(connection, activity, limits.idle).await);
            }
            // Without the `http2` feature an HTTP/2 preface goes to the
            // HTTP/1.1 server too, which refuses it.
            _ => {
                let connection = watcher.watch(self.h1.serve_connection(io, endpoint));
                ended(IdleLimited::new(connection, activity, limits.idle).await);
            }
        }
    }
}

/// Logs how a connection ended.
fn ended<E: std::fmt::Display>(outcome: Option<Result<(), E>>) {
    match outcome {
        Some(Ok(())) => {}
        Some(Err(e)) => tracing::debug!(error = %e, "connection ended with an error"),
        None => tracing::debug!("connection closed after waiting too long for a request"),
    }
}

/// Completes on SIGINT (Ctrl-C) or, on Unix, SIGTERM. A signal that cannot
/// be listened for never fires rather than stopping the server at once.
async fn shutdown_signal() {
    let interrupt = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => {}
        () = terminate => {}
    }
}
