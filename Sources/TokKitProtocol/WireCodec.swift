#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// JSON encoding and decoding of protocol messages and REST bodies, with the protocol's size limit applied.
///
/// Stateless; every function is safe to call from any thread. Bad input never traps: it returns a typed failure
/// carrying the ``ErrorCode`` the server replies with.
public enum WireCodec {
    /// A client message that could not be read: the request id when one was readable, and the error to reply with.
    public struct RequestFailure: Error, Hashable, Sendable {
        public var rid: Int?
        public var error: ProtocolError
        public init(rid: Int?, error: ProtocolError) {
            self.rid = rid
            self.error = error
        }
    }

    /// The outcome of reading a server message.
    public enum ServerDecoding: Hashable, Sendable {
        case message(ServerMessage)
        /// A `type` this build does not know: ignore it (additive protocol evolution).
        case unknownType(String)
        /// Not a valid server message.
        case malformed(String)
    }

    /// Encodes any protocol value (message or REST body) as compact UTF-8 JSON.
    public static func encode(_ value: some Encodable) -> [UInt8] {
        do {
            return Array(try JSONEncoder().encode(value))
        } catch {
            // Only non-finite floating point values can fail to encode; protocol types have none.
            preconditionFailure("protocol value failed to encode: \(error)")
        }
    }

    /// Decodes a client request, enforcing ``ProtocolLimits/maxFrameBytes``.
    public static func decodeRequest(_ bytes: some Collection<UInt8>) -> Result<ClientRequest, RequestFailure> {
        guard bytes.count <= ProtocolLimits.maxFrameBytes else {
            return .failure(RequestFailure(rid: nil, error: ProtocolError(.invalidParameter, "message too large")))
        }
        let data = Data(bytes)
        do {
            return .success(try JSONDecoder().decode(ClientRequest.self, from: data))
        } catch {
            // A message the decoder refuses as a whole (too deeply nested, say) may still have a readable rid.
            let rid = (try? JSONDecoder().decode(RidProbe.self, from: data))?.rid ?? RequestIDScanner.rid(in: bytes)
            return .failure(RequestFailure(rid: rid, error: ProtocolError(.invalidParameter, describe(error))))
        }
    }

    /// Decodes a server message.
    public static func decodeServer(_ bytes: some Collection<UInt8>) -> ServerDecoding {
        do {
            return .message(try JSONDecoder().decode(ServerMessage.self, from: Data(bytes)))
        } catch let unknown as UnknownMessageType {
            return .unknownType(unknown.type)
        } catch {
            return .malformed(describe(error))
        }
    }

    /// Decodes a REST body (or any protocol value) from JSON, with a ``ProtocolError/code`` of
    /// ``ErrorCode/invalidParameter`` on failure.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws(ProtocolError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch {
            throw ProtocolError(.invalidParameter, describe(error))
        }
    }

    private struct RidProbe: Decodable {
        var rid: Int?
    }

    /// A short description of a decoding error, naming the offending field.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "malformed JSON" }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "" : " at \(keys)"
        }
        switch error {
        case let .keyNotFound(key, context): return "missing field \(key.stringValue)\(path(context))"
        case let .typeMismatch(_, context): return "wrong type\(path(context))"
        case let .valueNotFound(_, context): return "null value\(path(context))"
        case let .dataCorrupted(context):
            return context.codingPath.isEmpty ? "malformed JSON" : "\(context.debugDescription)\(path(context))"
        @unknown default: return "malformed message"
        }
    }
}
