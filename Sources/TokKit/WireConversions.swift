import struct FoundationEssentials.Date
import TokKitProtocol

// Conversions between the wire types of TokKitProtocol and the public value types of TokKit.

extension Connection {
    init(_ info: ConnectionInfo) {
        self.init(connectionID: ConnectionID(info.id), creationTime: Date(millisecondsSince1970: info.creationTime), data: info.data)
    }
}

extension SessionStream {
    init(_ info: StreamInfo, connection: Connection) {
        self.init(
            streamID: StreamID(info.id), connection: connection, name: info.name, hasAudio: info.hasAudio,
            hasVideo: info.hasVideo, videoDimensions: info.videoDimensions.map(VideoDimensions.init),
            videoType: StreamVideoType(info.videoType), creationTime: Date(millisecondsSince1970: info.creationTime))
    }

    /// The changes that turn `self` into `other`, in a fixed order.
    func changes(to other: SessionStream) -> [StreamPropertyChange] {
        var out: [StreamPropertyChange] = []
        if hasAudio != other.hasAudio { out.append(.hasAudio(other.hasAudio)) }
        if hasVideo != other.hasVideo { out.append(.hasVideo(other.hasVideo)) }
        if videoDimensions != other.videoDimensions { out.append(.videoDimensions(other.videoDimensions)) }
        if videoType != other.videoType { out.append(.videoType(other.videoType)) }
        return out
    }
}

extension VideoDimensions {
    init(_ wire: TokKitProtocol.VideoDimensions) {
        self.init(width: wire.width, height: wire.height)
    }

    var wire: TokKitProtocol.VideoDimensions { .init(width: width, height: height) }
}

extension StreamVideoType {
    init(_ wire: VideoType) {
        switch wire {
        case .camera: self = .camera
        case .screen: self = .screen
        case .custom: self = .custom
        }
    }

    var wire: VideoType {
        switch self {
        case .camera: .camera
        case .screen: .screen
        case .custom: .custom
        }
    }
}

extension NegotiationMessage.Kind {
    init(_ wire: NegotiationKind) {
        switch wire {
        case .offer: self = .offer
        case .answer: self = .answer
        case .candidate: self = .candidate
        case .endOfCandidates: self = .endOfCandidates
        }
    }

    var wire: NegotiationKind {
        switch self {
        case .offer: .offer
        case .answer: .answer
        case .candidate: .candidate
        case .endOfCandidates: .endOfCandidates
        }
    }
}

extension SessionCapabilities {
    init(_ role: Role) {
        self.init(
            canPublish: role.mayPublish, canSubscribe: role.maySubscribe, canSignal: role.maySignal,
            canForceMute: role.mayModerate, canForceDisconnect: role.mayModerate)
    }
}

extension SessionError {
    init(_ reply: ServerMessage.ErrorReply) {
        self.init(code: reply.code.rawValue, message: reply.message)
    }
}

extension Date {
    init(millisecondsSince1970 ms: Int64) {
        self.init(timeIntervalSince1970: Double(ms) / 1000)
    }
}
