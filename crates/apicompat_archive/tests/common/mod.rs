pub mod zipwriter;
