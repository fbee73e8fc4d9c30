/// The coding key of the `type` discriminator every protocol message carries, and the `rid` request id.
enum EnvelopeKey: String, CodingKey {
    case type
    case rid
}
