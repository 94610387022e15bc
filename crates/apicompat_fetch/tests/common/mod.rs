pub mod server;
pub mod zipwriter;
