//! The Host check (DNS rebinding): a request for a name that is not this server's gets 421.

use std::convert::Infallible;
use std::future::{ready, Ready};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::header::HOST;
use axum::response::{IntoResponse, Response};
use futures_util::future::Either;
use tower::{Layer, Service};

use super::Guard;
use crate::http::error::ApiError;

/// The Host check as a layer: a request whose Host is not a name of this server gets 421 and
/// nothing else. A plain service (no boxing, no allocation): it sits on every request.
#[derive(Clone)]
pub struct HostCheckLayer(pub Arc<Guard>);

impl<S> Layer<S> for HostCheckLayer {
    type Service = HostCheck<S>;

    fn layer(&self, inner: S) -> HostCheck<S> {
        HostCheck {
            inner,
            guard: self.0.clone(),
        }
    }
}

#[derive(Clone)]
pub struct HostCheck<S> {
    inner: S,
    guard: Arc<Guard>,
}

impl<S> Service<Request> for HostCheck<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<S::Future, Ready<Result<Response, Infallible>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let host = match request.uri().authority() {
            Some(authority) => Some(authority.as_str()),
            None => request.headers().get(HOST).and_then(|h| h.to_str().ok()),
        };
        if host.is_some_and(|h| self.guard.answers_to(h)) {
            return Either::Left(self.inner.call(request));
        }
        tracing::warn!(host = ?host, "refused a request for a host name that is not ours");
        Either::Right(ready(Ok(ApiError::MisdirectedHost.into_response())))
    }
}
