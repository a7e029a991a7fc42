//! The three sections of a graph file that define names: graph inputs, nodes and graph
//! outputs (each becomes a node, so they share one set of names).

/// Which section of a graph file holds a name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// `inputs`: a graph input.
    Inputs,
    /// `nodes`.
    Nodes,
    /// `outputs`: a graph output.
    Outputs,
}

impl Section {
    /// The section's key in the file (`inputs`, `nodes`, `outputs`).
    pub fn key(self) -> &'static str {
        match self {
            Section::Inputs => "inputs",
            Section::Nodes => "nodes",
            Section::Outputs => "outputs",
        }
    }

    /// What one entry of the section is called in a message (`input`, `node`, `output`).
    pub fn what(self) -> &'static str {
        match self {
            Section::Inputs => "input",
            Section::Nodes => "node",
            Section::Outputs => "output",
        }
    }
}
