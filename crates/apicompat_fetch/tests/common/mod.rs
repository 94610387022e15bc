pub mod server;

