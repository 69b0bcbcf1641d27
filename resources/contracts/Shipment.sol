// A shipment between two organizations of a shard. Delivering it hands the shard over
// to the receiving organization and leaves a receipt contract behind.
contract Receipt {
    string public shipmentId;
    address public receiver;
    uint public deliveredAt;

    constructor(string _shipmentId, address _receiver, uint _deliveredAt) public {
        shipmentId = _shipmentId;
        receiver = _receiver;
        deliveredAt = _deliveredAt;
    }
}

contract Shipment {
    enum Status { Created, InTransit, Delivered }

    string public id;
    string public senderOrg;
    string public receiverOrg;
    address public sender;
    address public receiver;
    Status public status;
    Receipt public receipt;

    event OrganizationAdded(string org);
    event OrganizationRemoved(string org);

    constructor(string _id, string _receiverOrg, address _receiver) public {
        id = _id;
        sender = msg.sender;
        senderOrg = getUserCert(msg.sender)["organization"];
        receiverOrg = _receiverOrg;
        receiver = _receiver;
        status = Status.Created;
    }

    function ship() public {
        require(msg.sender == sender, "Only the sender can ship");
        require(status == Status.Created, "Shipment already left");
        status = Status.InTransit;
    }

    function deliver() public returns (address) {
        require(msg.sender == sender, "Only the sender must deliver the shipment");
        require(status != Status.Delivered, "Shipment already delivered");
        emit OrganizationAdded(receiverOrg);
        emit OrganizationRemoved(senderOrg);
        status = Status.Delivered;
        receipt = new Receipt(id, receiver, block.timestamp);
        return address(receipt);
    }
}
