//! Sessions as the front ends use them: what the next request of a stored session would hold
//! ([`SessionContext`], read by `wright context` and `/context`).

mod next_request;

pub use next_request::SessionContext;
