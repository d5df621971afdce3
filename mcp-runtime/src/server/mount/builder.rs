//! The builder's mounting: [`ServerBuilder::mount`].

use super::Mount;
use crate::server::Server;
use crate::server::ServerBuilder;

impl ServerBuilder {
    /// Serves `server`'s tools, prompts and resources as part of this one,
    /// under `namespace`: a tool or prompt `name` as `namespace_name`, a
    /// resource or template `scheme://rest` as `scheme://namespace/rest`
    /// (a template's variables are the same).
    ///
    /// The mounted entries keep what they had in `server`: its state (a
    /// handler's `State<T>` and `RequestContext::server` are `server`'s),
    /// their scopes, completions and views, its tasks' support (tasks run
    /// in this server's task store), and, for its tools, its layers and
    /// theirs (inside this server's; its prompts and resources pass this
    /// server's layers only). Entries `server` adds or removes later, and the list changes
    /// and resource updates it announces, reach this server's listeners.
    /// A namespace that cannot prefix a tool name is
    /// [`BuildError::Mount`](crate::BuildError::Mount); a mounted name that
    /// is taken is [`BuildError::Duplicate`](crate::BuildError::Duplicate),
    /// which names both definitions.
    ///
    /// ```
    /// use mcp_runtime::{Server, State, entry::ToolEntry};
    ///
    /// // A server of its own, with its own state: another crate may export it.
    /// let files = Server::builder("files", "1.0.0")
    ///     .state(String::from("/srv/files"))
    ///     .tool(ToolEntry::new("root", |root: State<String>| async move { root.0 }))
    ///     .build()
    ///     .unwrap();
    /// let server = Server::builder("product", "1.0.0").mount("files", files).build().unwrap();
    /// assert_eq!(server.tool_names(), ["files_root"]);
    /// ```
    pub fn mount(mut self, namespace: impl Into<String>, server: Server) -> Self {
        self.mounts.push(Mount { namespace: namespace.into().into(), server });
        self
    }
}

#[cfg(feature = "client")]
impl ServerBuilder {
    #[doc = include_str!("../../../doc/mount_remote.md")]
    pub fn mount_remote(mut self, namespace: impl Into<String>, remote: crate::client::Remote) -> Self {
        let namespace: std::sync::Arc<str> = namespace.into().into();
        if let Err(e) = super::check_namespace(&namespace) {
            self.deferred_errors.push(e);
            return self;
        }
        self.serve_remote(namespace, remote)
    }

    /// Serves a remote server's catalog as it is, without a namespace: a
    /// proxy in front of one server (an old stdio-only one served over
    /// HTTP, say), with everything [`mount_remote`](Self::mount_remote)
    /// relays. Its names must not clash with this server's own.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// use mcp_runtime::Server;
    /// use mcp_runtime::client::{Client, Remote};
    ///
    /// let remote = Remote::connect(Client::spawn(tokio::process::Command::new("legacy-mcp-server"))?).await?;
    /// Server::builder("proxy", "1.0.0").proxy(remote).build()?.serve_http("127.0.0.1:3000").await?;
    /// # Ok(()) }
    /// ```
    pub fn proxy(self, remote: crate::client::Remote) -> Self {
        self.serve_remote("".into(), remote)
    }

    fn serve_remote(mut self, namespace: std::sync::Arc<str>, remote: crate::client::Remote) -> Self {
        use super::remote::{self, Mounted};
        let mount = Mounted::new(std::sync::Arc::clone(&namespace), &remote);
        self.mounted_namespaces.push(namespace);
        self.followed.push(super::follow::Followed::new(mount.clone(), &remote));
        let crate::client::Remote { listed, .. } = remote;
        let views = listed.has_views();
        for tool in listed.tools {
            self.tools.push(remote::tool(&mount, tool, listed.tasks, views));
        }
        for prompt in listed.prompts {
            self.prompts.push(remote::prompt(&mount, prompt, listed.completes));
        }
        for resource in listed.resources {
            self.resources.push(remote::resource(&mount, resource));
        }
        for template in listed.templates {
            self.resources.push(remote::template(&mount, template, listed.completes));
        }
        #[cfg(feature = "skills")]
        let mut served: std::collections::HashSet<String> = self.resources.iter().map(|r| r.uri().to_owned()).collect();
        #[cfg(feature = "skills")]
        for skill in listed.skills {
            // Each file read from the remote by its URI there; the
            // `SKILL.md`s it lists among its resources are served already.
            if let crate::protocol::SkillFiles::Listed(files) = &skill.resources {
                for file in files {
                    let here = super::mounted_uri(&mount.namespace, &file.uri);
                    if !served.insert(here) {
                        continue;
                    }
                    let name = file.uri.rsplit('/').next().unwrap_or(&file.uri).to_owned();
                    let mut entry = remote::resource(&mount, crate::protocol::Resource::new(file.uri.clone(), name));
                    entry.listed = file.uri == skill.uri;
                    self.resources.push(entry);
                }
            }
            let here = crate::registry::skills::renamed(skill, |uri| super::mounted_uri(&mount.namespace, uri));
            self.remote_skills.push(here);
        }
        self
    }
}
