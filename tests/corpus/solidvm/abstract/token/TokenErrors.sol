// Errors of the token family, at file level so that the token's own code, its extensions and
// the contracts that call a token (and catch these by name) all see the same declarations.

error InsufficientBalance(address holder, uint available, uint needed);
error InsufficientAllowance(address spender, uint available, uint needed);
error InvalidReceiver(address receiver);
error InvalidCap(uint cap);
error CapExceeded(uint cap, uint wouldBe);
error TokenPaused();
