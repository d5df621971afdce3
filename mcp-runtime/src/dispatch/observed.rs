//! Where the dispatcher meets telemetry: a request is observed from before
//! its first check, so that a refusal is a span too, and what it is about
//! is read once it is routed.

use super::method::Route;
use super::{HeaderCheck, Prepared, Request, RequestOptions, Response};
use crate::middleware::{Refusal, RefusalReason};
use crate::server::Server;
use crate::telemetry::{self, Ending, Observation, Origin, Target};

impl Server {
    /// [`prepare`](Self::prepare) for a request that came from `origin`.
    pub(crate) fn prepare_from(
        &self,
        request: Request,
        headers: Option<&dyn HeaderCheck>,
        origin: Origin<'_>,
    ) -> Result<Prepared, Box<Response>> {
        let mut observation = match origin.is_nested() {
            true => Observation::default(),
            false => Observation::start(request.method(), Some(request.id()), &origin),
        };
        // What a refusal is told to the server's layers with (only a server
        // with layers keeps it).
        let named =
            self.hears_refusals().then(|| (request.method().to_owned(), request.called_tool().map(str::to_owned)));
        // Changed in place and returned as is: the prepared request is large,
        // and this is on every request's path.
        let access = self.access_from(&origin);
        let mut prepared = self.validate(request, headers, access);
        match &mut prepared {
            Ok(_) if !observation.is_active() => {}
            Ok(prepared) => {
                observation.routed(&prepared.meta.protocol_version, target(prepared), Some(&prepared.meta.other));
                prepared.observation = observation;
            }
            Err(refused) if origin.is_nested() => telemetry::note_refusal(refused.stage()),
            Err(refused) => observation.finish(Ending::Answered(refused)),
        }
        if let (Err(refused), Some((method, tool))) = (&prepared, &named) {
            self.refused_invalid(refused, method, tool.as_deref(), &origin);
        }
        prepared
    }

    /// Tells the server's layers of a request the pipeline refused.
    fn refused_invalid(&self, refused: &Response, method: &str, tool: Option<&str>, origin: &Origin<'_>) {
        let Some(error) = refused.as_error() else { return };
        let mut refusal = Refusal::new(RefusalReason::Invalid, &error.message);
        refusal.method = Some(method);
        refusal.target = tool;
        refusal.error_code = Some(error.code);
        #[cfg(feature = "http")]
        if let Some(parts) = origin.http_parts() {
            refusal.principal = parts.extensions.get::<crate::handler::principal::Principal>();
            refusal.client_address =
                parts.extensions.get::<crate::handler::caller::ClientAddress>().map(|address| address.0);
        }
        let _ = origin;
        self.refused(&refusal);
    }

    /// [`handle`](Self::handle) for a request that came from `origin`.
    pub(crate) async fn handle_from(
        &self,
        request: Request,
        headers: Option<&dyn HeaderCheck>,
        options: RequestOptions,
        origin: Origin<'_>,
    ) -> Response {
        match self.prepare_from(request, headers, origin) {
            Ok(prepared) => prepared.run(options).await,
            Err(response) => *response,
        }
    }
}

/// What a routed request names.
fn target(p: &Prepared) -> Target<'_> {
    match &p.route {
        Route::CallTool(params, position) => Target::Tool {
            name: &params.name,
            trace: p.snapshot.catalog().tool(*position).trace_content,
            arguments: params.arguments.as_deref().map(serde_json::value::RawValue::get),
        },
        Route::GetPrompt(params, _) => Target::Prompt(&params.name),
        Route::ReadResource(params) => Target::Resource(&params.uri),
        Route::Discover | Route::List(..) | Route::Complete(_) | Route::Listen(_) => Target::None,
        #[cfg(feature = "tasks")]
        Route::Task(_) => Target::None,
        #[cfg(feature = "skills")]
        Route::Skills(request) => request.target().map_or(Target::None, Target::Resource),
        #[cfg(feature = "tool-search")]
        Route::SearchTools(arguments) => Target::Tool {
            name: crate::search::SEARCH_TOOL,
            trace: false,
            arguments: arguments.as_deref().map(serde_json::value::RawValue::get),
        },
    }
}
