#if canImport(Glibc)
import Glibc
#endif

/// Finds out whether this machine has a sound card TokKit can use, without side effects on it.
///
/// A card is usable when `/proc/asound/cards` lists at least one card **and** the PCM (`"default"`) opens for
/// playback without blocking (it is closed again at once). The file is checked first so a machine without
/// ALSA never reaches alsa-lib (which would print its lookup errors on stderr). Callable from any thread.
public enum SoundCardProbe {
    /// Whether a card is listed in `cardsFile` and `pcm` opens (from `configuration` when given).
    public static func isUsable(
        pcm: String = "default", cardsFile: String = "/proc/asound/cards", configuration: ALSAConfiguration? = nil
    ) -> Bool {
        guard cardListed(in: cardsFile) else { return false }
        do throws(AudioDeviceError) {
            _ = try ALSAPCM(name: pcm, direction: .playback, configuration: configuration)
            return true
        } catch {
            return false
        }
    }

    /// Whether the file `cardsFile` (normally `/proc/asound/cards`) lists a card; false when it is unreadable.
    public static func cardListed(in cardsFile: String = "/proc/asound/cards") -> Bool {
        readSmallFile(cardsFile).map(listsCard) ?? false
    }

    /// Whether the text of `/proc/asound/cards` lists a card: a line that starts (after blanks) with a card
    /// number and `[`, as ` 0 [PCH            ]: HDA-Intel - HDA Intel PCH`. A machine without cards shows
    /// `--- no soundcards ---`.
    public static func listsCard(_ cards: String) -> Bool {
        cards.split(separator: "\n").contains { line in
            let trimmed = line.drop { $0 == " " }
            let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
            return !digits.isEmpty && trimmed.dropFirst(digits.count).drop { $0 == " " }.first == "["
        }
    }

    /// The first 64 KiB of a file (procfs files report size 0, so read until EOF), or nil if unreadable.
    static func readSmallFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let capacity = 64 * 1024
        return String(unsafeUninitializedCapacity: capacity) { buf in
            var done = 0
            while done < capacity {
                let n = read(fd, buf.baseAddress! + done, capacity - done)
                if n > 0 { done += n } else if n < 0 && errno == EINTR { continue } else { break }
            }
            return done
        }
    }
}
