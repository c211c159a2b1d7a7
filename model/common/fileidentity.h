// SPDX-License-Identifier: MIT
#pragma once

#include <QString>
#include <QtGlobal>
#include <optional>

namespace tidemark {

// Which file a name leads to (device and inode): a file replaced under its name (restored from
// a backup, copied over) is another file, though its name and contents may look the same.
struct FileIdentity {
    quint64 device = 0;
    quint64 inode = 0;

    // The file at `path` now; nullopt when there is none.
    static std::optional<FileIdentity> of(const QString &path);
    bool operator==(const FileIdentity &) const = default;
};

} // namespace tidemark
