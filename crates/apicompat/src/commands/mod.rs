//! One module per subcommand.

pub mod build;
pub mod check_files;
pub mod completions;
pub mod diff;
pub mod env;
pub mod fetch;
pub mod fix;
pub mod list;
pub mod on_demand;
pub mod pack;
pub mod query;
pub mod range;
pub mod requirements;
pub mod server;
pub mod server_names;
pub mod show;
pub mod version_helpers;
pub mod wheels;
