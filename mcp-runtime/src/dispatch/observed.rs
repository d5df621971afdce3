//! Where the dispatcher meets telemetry: a request is observed from before
//! its first check, so that a refusal is a span too, and what it is about
//! is read once it is routed.

use super::method::Route;
use super::{HeaderCheck, Prepared, Request, RequestOptions, Response};
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
        if origin.is_nested() {
            return self.validate(request, headers).inspect_err(|refused| telemetry::note_refusal(refused.stage()));
        }
        let mut observation = Observation::start(request.method(), Some(request.id()), &origin);
        match self.validate(request, headers) {
            Ok(mut prepared) if observation.is_active() => {
                observation.routed(&prepared.meta.protocol_version, target(&prepared), Some(&prepared.meta.other));
                prepared.observation = observation;
                Ok(prepared)
            }
            Ok(prepared) => Ok(prepared),
            Err(refused) => {
                observation.finish(Ending::Answered(&refused));
                Err(refused)
            }
        }
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
    }
}
