"""The node's HTTP route families, one module each; app.node.api assembles them."""
