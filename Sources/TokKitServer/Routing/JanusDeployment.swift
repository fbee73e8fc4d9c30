#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Which Janus a standalone server (`tokkit-server`) uses for its routed sessions: `--janus-mode` (Docs/Routing.md,
/// "Deployment").
public enum JanusMode: String, Sendable, Hashable, CaseIterable {
    /// The default: the Janus given (`--janus URL` or `"janus"` in the config file) if any; otherwise an embedded
    /// Janus when the `janus` executable is installed and the machine has a non-loopback IPv4 address for its
    /// media; otherwise none (routed sessions are relayed, with a warning saying why).
    case auto
    /// An embedded Janus, which must start: a missing executable or address is an error.
    case embedded
    /// No Janus: routed sessions behave like relayed ones.
    case none
}

/// The Janus deployment ``ServerConfiguration/resolveJanus(mode:external:mediaAddress:executable:)`` chose.
public enum JanusDeployment: Sendable, Hashable {
    /// The server connects to the Janus instances it was given.
    case external(urls: [String])
    /// The server starts its own Janus.
    case embedded(EmbeddedJanusSettings)
    /// No Janus; `reason` says why (for a log line).
    case none(reason: String)
}

extension ServerConfiguration {
    /// Applies `tokkit-server`'s Janus options to this configuration (its ``janus`` and ``embeddedJanus`` may come
    /// from the config file) and returns what it chose.
    ///
    /// - `external`: the instances `--janus URL` names (their secrets included); they replace the file's ``janus``.
    /// - `mediaAddress`, `executable`: `--janus-interface`, `--janus-executable`, for an embedded Janus (they override
    ///   the file's ``embeddedJanus`` fields).
    /// - Throws ``TokKitServerError/configuration(_:)`` for contradictions: an external Janus with `embedded` or
    ///   `none`, or a config file naming both.
    public mutating func resolveJanus(mode: JanusMode, external: [RoutedMediaConfiguration] = [],
                                      mediaAddress: String? = nil, executable: String? = nil)
        throws(TokKitServerError) -> JanusDeployment {
        if !external.isEmpty { janus = external }
        if !janus.isEmpty {
            switch mode {
            case .auto:
                guard !external.isEmpty || embeddedJanus == nil else {
                    throw .configuration("the config file sets both janus and embeddedJanus")
                }
                embeddedJanus = nil
                return .external(urls: janus.map(\.url))
            case .embedded: throw .configuration("--janus-mode embedded and a Janus URL (--janus or janus) exclude each other")
            case .none: throw .configuration("--janus-mode none and a Janus URL (--janus or janus) exclude each other")
            }
        }
        var settings = embeddedJanus ?? EmbeddedJanusSettings()
        if let mediaAddress { settings.mediaAddress = mediaAddress }
        if let executable { settings.executable = executable }
        switch mode {
        case .none:
            embeddedJanus = nil
            return .none(reason: "--janus-mode none")
        case .embedded:
            embeddedJanus = settings
            return .embedded(settings)
        case .auto:
            if !FileManager.default.isExecutableFile(atPath: settings.executable) {
                embeddedJanus = nil
                return .none(reason: "no janus executable at \(settings.executable) (install it: scripts/bootstrap)")
            }
            if settings.mediaAddress == nil && EmbeddedJanusSettings.defaultMediaAddress() == nil {
                embeddedJanus = nil
                return .none(reason: "no non-loopback IPv4 address for Janus's media (give one: --janus-interface)")
            }
            embeddedJanus = settings
            return .embedded(settings)
        }
    }
}
