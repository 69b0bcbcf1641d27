pragma solidvm 3.2;

// On-chain record of a file kept in an external object store: the file's hash and
// the list of users who attested to it. Nothing can change except the signer list.
contract ExternalStorage {
    string public fileKey;
    string public uri;
    string public host;
    string public fileHash;
    string public metadata;
    address[] public signers;
    uint public timeStamp;

    constructor(string _fileKey, string _uri, string _host, string _fileHash, string _metadata)
        public
    {
        fileKey = _fileKey;
        uri = _uri;
        host = _host;
        fileHash = _fileHash;
        metadata = _metadata;
        signers.push(msg.sender);
        timeStamp = now;
    }

    function attest() public returns (address[]) {
        for (uint i = 0; i < signers.length; i++) {
            require(signers[i] != msg.sender, "You already signed this transaction");
        }
        signers.push(msg.sender);
        return signers;
    }

    function getSigners() public view returns (address[]) {
        return signers;
    }
}
