// Generated-style asset contract for the sample "car" application.
//
// The asset is the governance contract of its own shard: the reserved events
// OrganizationAdded / OrganizationRemoved change the shard membership, and the
// OrgAdded / OrgRemoved events mirror them for the application's own bookkeeping.
contract Car {
    address public owner;
    string public appChainId;
    string public ownerOrganization;
    string public ownerOrganizationalUnit;
    string public ownerCommonName;

    string public vin;
    string public color;
    string public model;
    int public weight;

    event OrganizationAdded(string org);
    event OrganizationRemoved(string org);
    event OrgAdded(string orgName);
    event OrgRemoved(string orgName);

    constructor(string _appChainId, string _vin, string _color, string _model, int _weight) public {
        owner = msg.sender;
        appChainId = _appChainId;
        ownerOrganization = getUserCert(msg.sender)["organization"];
        ownerOrganizationalUnit = getUserCert(msg.sender)["organizationalUnit"];
        ownerCommonName = getUserCert(msg.sender)["commonName"];
        vin = _vin;
        color = _color;
        model = _model;
        weight = _weight;
    }

    // `_scheme` is read as a binary string in field declaration order, the leftmost
    // bit standing for the first field: vin = 8, color = 4, model = 2, weight = 1.
    function update(string _vin, string _color, string _model, int _weight, uint _scheme)
        public
        returns (uint)
    {
        if (tx.origin != owner) {
            return 403;
        }
        if (_scheme == 0) {
            return 200;
        }
        if ((_scheme & (1 << 3)) == (1 << 3)) {
            vin = _vin;
        }
        if ((_scheme & (1 << 2)) == (1 << 2)) {
            color = _color;
        }
        if ((_scheme & (1 << 1)) == (1 << 1)) {
            model = _model;
        }
        if ((_scheme & 1) == 1) {
            weight = _weight;
        }
        return 200;
    }

    function transferOwnership(address _addr) public returns (uint) {
        if (tx.origin != owner) {
            return 403;
        }
        string newOrg = getUserCert(account(_addr))["organization"];
        string newUnit = getUserCert(account(_addr))["organizationalUnit"];
        string newName = getUserCert(account(_addr))["commonName"];
        if (newOrg.length == 0) {
            return 404;
        }
        string oldOrg = ownerOrganization;
        if (newOrg != oldOrg) {
            emit OrganizationAdded(newOrg);
            emit OrgAdded(newOrg);
            emit OrganizationRemoved(oldOrg);
            emit OrgRemoved(oldOrg);
        }
        owner = _addr;
        ownerOrganization = newOrg;
        ownerOrganizationalUnit = newUnit;
        ownerCommonName = newName;
        return 200;
    }
}
