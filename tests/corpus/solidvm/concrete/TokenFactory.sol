import "../abstract/access/Ownable.sol";
import "./Token.sol";

// Deploys tokens at addresses anyone can compute in advance.
//
// `new Token{salt: s}(args)` places the token at
//     keccak256(rlp([0xff, factory, s, codeCollectionHash, "Token", args...]))[12:]
// and `address(this).derive(s, "Token", args...)` computes the same address without deploying.
// The salt must be a string; a second creation with the same salt and arguments fails.
// `create2(salt, name, source, args...)` does the same for a contract compiled from source text
// (its code collection hash is the keccak256 of that text).
contract record TokenFactory is Ownable {
    address[] public record tokens;
    mapping(string => address) public record tokenBySymbol;

    error SymbolTaken(string symbol, address existing);

    event TokenCreated(address indexed token, string symbol, address indexed requestedBy);
    event ContractDeployed(address indexed deployed, string contractName, string salt);

    constructor(address admin) Ownable(admin) {
    }

    // The symbol is the salt: one token per symbol, at a predictable address.
    function createToken(string name_, string symbol_, uint cap_, uint initialSupply) public onlyOwner returns (address) {
        address existing = tokenBySymbol[symbol_];
        if (existing != address(0)) {
            revert SymbolTaken(symbol_, existing);
        }
        Token token = new Token{salt: symbol_}(name_, symbol_, cap_, address(this));
        if (initialSupply > 0) {
            token.mint(msg.sender, initialSupply);
        }
        token.transferOwnership(msg.sender);
        address created = address(token);
        tokens.push(created);
        tokenBySymbol[symbol_] = created;
        emit TokenCreated(created, symbol_, msg.sender);
        return created;
    }

    function predictToken(string name_, string symbol_, uint cap_) public view returns (address) {
        return address(this).derive(symbol_, "Token", name_, symbol_, cap_, address(this));
    }

    // Deploys `contractName` from `src` with one string argument for its constructor.
    function deployFromSource(string salt_, string contractName, string src, string arg) public onlyOwner returns (address) {
        address deployed = create2(salt_, contractName, src, arg);
        emit ContractDeployed(deployed, contractName, salt_);
        return deployed;
    }

    function tokenCount() public view returns (uint) {
        return tokens.length;
    }
}
