//! Level files: schema, loading with designer-facing errors, hot reload.
pub mod schema;
pub use schema::*;
