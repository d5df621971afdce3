//! Serving a builder as a [`Deployment`] says: its settings put on the
//! builder and on the transport, Redis connected, the transport chosen.

use super::{Deployment, DeploymentError, ServeError, Transport};
use crate::server::ServerBuilder;

impl Deployment {
    /// Builds `builder` with this deployment's settings and serves it until
    /// shutdown (Ctrl-C or `SIGTERM` over HTTP, the end of stdin over
    /// stdio). A setting the deployment gives replaces what the builder
    /// had (the `requestState` key, the eras, the authorization server;
    /// with Redis, the event bus and the task store); one it does not give
    /// leaves the builder's.
    ///
    /// With `--help` it prints [`usage`](Self::usage) and returns; with
    /// `--dump-catalog` it writes the catalog snapshot and returns, having
    /// connected to nothing and bound nothing. Over stdio there is one
    /// client and no replica: Redis is not used.
    ///
    /// [`args`](Self::args) is not looked at: a server with arguments of
    /// its own reads them first, and one without any calls
    /// [`ServerBuilder::serve`], which refuses them.
    pub async fn serve(self, builder: ServerBuilder) -> Result<(), ServeError> {
        if self.help {
            std::io::Write::write_all(&mut std::io::stdout(), Self::usage().as_bytes())?;
            return Ok(());
        }
        let builder = self.configure(builder);
        match self.transport {
            #[cfg(feature = "stdio")]
            Transport::Stdio => builder.build()?.serve_stdio().await?,
            #[cfg(feature = "http")]
            Transport::Http(addr) => {
                #[cfg_attr(not(feature = "redis"), allow(unused_mut))]
                let mut config = self.http_config();
                #[cfg(feature = "oauth-proxy")]
                #[cfg_attr(not(feature = "redis"), allow(unused_mut))]
                let mut proxy = self.oauth_proxy.clone();
                #[cfg(feature = "redis")]
                let builder = match (&self.redis_url, &self.dump_catalog) {
                    (Some(url), None) => {
                        let shared = shared::Shared::connect(url, &builder.info.name).await?;
                        config = shared.configure_http(config);
                        #[cfg(feature = "oauth-proxy")]
                        if let Some(with) = proxy.take() {
                            proxy = Some(shared.configure_proxy(with, &builder.info.name).await?);
                        }
                        shared.configure(builder)
                    }
                    _ => builder,
                };
                // HTTP only: stdio is never authenticated.
                #[cfg(feature = "oauth-proxy")]
                let builder = match proxy {
                    Some(proxy) => builder.oauth_proxy(proxy),
                    None => builder,
                };
                builder.build()?.serve_http_with(addr, config).await?;
            }
        }
        Ok(())
    }

    /// The builder's share of the settings.
    fn configure(&self, mut builder: ServerBuilder) -> ServerBuilder {
        // The deployment answers `--dump-catalog` itself (it took the flag):
        // the serve helpers write the dump instead of serving.
        builder = builder.catalog_flag(false);
        if let Some(dump) = &self.dump_catalog {
            builder = builder.dump_catalog(dump.clone());
        }
        if let Some(key) = &self.request_state_key {
            builder = builder.request_state_key(key.clone());
        }
        if let Some(eras) = self.eras {
            builder = builder.eras(eras);
        }
        #[cfg(feature = "auth")]
        if let Some(authorization) = &self.authorization {
            builder = builder.authorization(authorization.clone());
        }
        builder
    }

    /// The HTTP transport's share: the public URL, the proxies in front,
    /// the probes, the drain, TLS.
    #[cfg(feature = "http")]
    fn http_config(&self) -> crate::transport::http::HttpConfig {
        use crate::transport::http::{ForwardedHeader, HttpConfig};

        let http = &self.http;
        let mut config = HttpConfig::default().shutdown_drain(http.shutdown_drain);
        if let Some(url) = &http.public_url {
            config = config.public_url(url);
        }
        if http.trusted_proxies > 0 {
            config = config.trusted_proxies(http.trusted_proxies, ForwardedHeader::XForwardedFor);
        }
        if http.health {
            config = config.health_endpoints("/healthz", "/readyz");
        }
        #[cfg(feature = "tls")]
        if let Some((cert, key)) = &http.tls {
            config = config.tls(cert, key);
        }
        config
    }
}

impl ServerBuilder {
    /// Builds this server and serves it as its command line and `MCP_*`
    /// variables say ([`Deployment::from_process`], then
    /// [`Deployment::serve`]): `--stdio` or `--http ADDR`, Redis, the
    /// shared `requestState` key, the public URL, probes, OAuth, TLS,
    /// `--dump-catalog`, `--help` (the table is in the
    /// [`deployment`](crate::deployment) module). Any other argument is
    /// [`DeploymentError::UnknownArgument`]; a server with arguments of its
    /// own uses [`Deployment`] directly.
    ///
    /// ```no_run
    /// /// Adds two numbers.
    /// #[mcp_runtime::tool]
    /// async fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// #[mcp_runtime::main(logging)]
    /// async fn main() -> Result<(), Box<dyn std::error::Error>> {
    ///     mcp_runtime::server!().serve().await?; // http://127.0.0.1:3000/mcp, or as told
    ///     Ok(())
    /// }
    /// ```
    pub async fn serve(self) -> Result<(), ServeError> {
        let deployment = Deployment::from_process()?;
        if let (Some(argument), false) = (deployment.args.first(), deployment.help) {
            return Err(DeploymentError::UnknownArgument { argument: argument.clone() }.into());
        }
        deployment.serve(self).await
    }
}

#[cfg(all(feature = "redis", feature = "http"))]
mod shared {
    //! What replicas share through Redis.

    use crate::deployment::ServeError;
    use crate::redis::RedisBus;
    use crate::server::ServerBuilder;

    /// The Redis side of a deployment, connected.
    pub(super) struct Shared {
        bus: RedisBus,
        #[cfg(feature = "tasks")]
        tasks: crate::redis::RedisTaskStore,
        #[cfg(feature = "session")]
        sessions: crate::redis::RedisSessionStore,
        /// The DPoP proofs every replica has seen.
        #[cfg(feature = "auth")]
        proofs: crate::redis::RedisReplayStore,
        /// Where it connected, for the stores made later.
        #[cfg_attr(not(feature = "oauth-proxy"), allow(dead_code))]
        url: String,
    }

    impl Shared {
        /// Connects to Redis at `url`; `name` (the server's) keeps this
        /// server's keys and channels apart from other servers' there.
        pub(super) async fn connect(url: &str, name: &str) -> Result<Self, ServeError> {
            let failed = |source| ServeError::Redis { url: url.to_owned(), source };
            let prefix = format!("mcp:{name}");
            Ok(Shared {
                bus: RedisBus::connect(url, &format!("{prefix}:events")).await.map_err(failed)?,
                #[cfg(feature = "tasks")]
                tasks: crate::redis::RedisTaskStore::connect(url, &prefix).await.map_err(failed)?,
                #[cfg(feature = "session")]
                sessions: crate::redis::RedisSessionStore::connect(url, &prefix).await.map_err(failed)?,
                #[cfg(feature = "auth")]
                proofs: crate::redis::RedisReplayStore::connect(url, &prefix).await.map_err(failed)?,
                url: url.to_owned(),
            })
        }

        /// The event bus, the task store and the DPoP replay store, on `builder`.
        pub(super) fn configure(&self, builder: ServerBuilder) -> ServerBuilder {
            #[cfg(feature = "auth")]
            let builder = {
                let mut builder = builder;
                if let Some(authorization) = &mut builder.authorization
                    && let Some(dpop) = authorization.dpop.take()
                {
                    authorization.dpop = Some(dpop.replay_store(self.proofs.clone()));
                }
                builder
            };
            let builder = builder.event_bus(self.bus.clone());
            #[cfg(feature = "tasks")]
            let builder = builder.task_store(self.tasks.clone());
            builder
        }

        /// The front's store in Redis, shared by the replicas: one signing
        /// key, and clients, grants and codes any replica can finish.
        #[cfg(feature = "oauth-proxy")]
        pub(super) async fn configure_proxy(
            &self,
            proxy: crate::oauth_proxy::OAuthProxy,
            name: &str,
        ) -> Result<crate::oauth_proxy::OAuthProxy, ServeError> {
            let store = crate::redis::RedisProxyStore::connect(&self.url, &format!("mcp:{name}"))
                .await
                .map_err(|source| ServeError::Redis { url: self.url.clone(), source })?;
            Ok(proxy.store(store))
        }

        /// The session store, on the HTTP transport's `config`.
        pub(super) fn configure_http(
            &self,
            config: crate::transport::http::HttpConfig,
        ) -> crate::transport::http::HttpConfig {
            #[cfg(feature = "session")]
            let config = config.session_store(self.sessions.clone());
            config
        }
    }
}
