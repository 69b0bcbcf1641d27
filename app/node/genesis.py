"""What a fresh data dir starts with: the operator, the demo users and the identity registry."""

from __future__ import annotations

from dataclasses import dataclass

REGISTRY_ADDRESS = "0000000000000000000000000000000000000509"
ROOT_USER = "admin"
DESKTOP_CLIENT = "stratoscope-desktop"  # public client: authorization code + PKCE
NODE_CLIENT = "stratoscope-node"  # confidential client: client_credentials acts as ROOT_USER

# One token is 10**18 of the smallest unit, as ether is 10**18 wei.
TOKEN = 10**18
FAUCET_AMOUNT = 2000 * TOKEN
# Demo users' starting balance when gas is off, so that value transfers can be tried at once.
DEMO_BALANCE = 1000 * TOKEN


@dataclass(frozen=True)
class DemoUser:
    name: str
    org: str
    unit: str
    identity: bool = True


DEMO_USERS = (
    DemoUser(ROOT_USER, "BlockApps", "Operations"),
    DemoUser("alice", "Acme", "Engineering"),
    DemoUser("bob", "Globex", "Logistics"),
    DemoUser("carol", "Acme", "Sales"),
    DemoUser("dave", "Initech", "Research", identity=False),
)


def default_password(name: str) -> str:
    """Demo users' password until changed: their own name (documented in the README)."""
    return name


REGISTRY_SOURCE = """
contract Certificate {
    address public userAddress;
    address public parent;
    string public commonName;
    string public country;
    string public organization;
    string public group;
    string public organizationalUnit;
    string public publicKey;
    string public certificateString;
    bool public isValid;

    constructor(address _userAddress, string _commonName, string _organization,
                string _organizationalUnit, string _country, string _publicKey,
                string _certificateString) public {
        userAddress = _userAddress;
        parent = msg.sender;
        commonName = _commonName;
        organization = _organization;
        organizationalUnit = _organizationalUnit;
        group = _organizationalUnit;
        country = _country;
        publicKey = _publicKey;
        certificateString = _certificateString;
        isValid = true;
    }

    function revoke() public {
        require(msg.sender == parent, "only the registry can revoke a certificate");
        isValid = false;
    }
}

contract CertificateRegistry {
    address public owner;
    mapping(address => Certificate) public certificates;
    address[] public users;

    event CertificateRegistered(string commonName, address userAddress);
    event CertificateRevoked(address userAddress);

    constructor() public {
        owner = msg.sender;
    }

    function registerCertificate(address _userAddress, string _commonName, string _organization,
                                 string _organizationalUnit, string _country, string _publicKey,
                                 string _certificateString)
        public returns (address)
    {
        require(msg.sender == owner, "only the node operator can register certificates");
        require(address(certificates[_userAddress]) == address(0),
                "a certificate is already registered for this address");
        Certificate c = new Certificate(_userAddress, _commonName, _organization,
                                        _organizationalUnit, _country, _publicKey,
                                        _certificateString);
        certificates[_userAddress] = c;
        users.push(_userAddress);
        emit CertificateRegistered(_commonName, _userAddress);
        return address(c);
    }

    function revokeCertificate(address _userAddress) public {
        require(msg.sender == owner, "only the node operator can revoke certificates");
        Certificate c = certificates[_userAddress];
        require(address(c) != address(0), "no certificate is registered for this address");
        c.revoke();
        emit CertificateRevoked(_userAddress);
    }
}
"""
