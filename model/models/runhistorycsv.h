// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runpage.h"

#include <QSaveFile>
#include <QStringList>
#include <QTimeZone>

namespace tidemark {

// A run-history CSV file written a page of runs at a time (RFC 4180, UTF-8, CRLF), in the
// format RunHistoryModel::csvHeader/csvFields define, so any number of runs fits and none is
// held longer than its page. The file appears whole on commit() or not at all: destroyed
// before, it leaves a file already there as it was. Every error throws Error naming the file.
// Not thread-bound, but used by one thread at a time.
class RunHistoryCsv {
public:
    RunHistoryCsv(const QString &path, const QStringList &header, const QTimeZone &zone);

    void write(const QList<RunOverview> &runs);
    void commit();
    qint64 written() const { return m_written; }

private:
    void append(const QString &text);
    [[noreturn]] void fail() const;

    QString m_path;
    QTimeZone m_zone;
    QSaveFile m_file;
    qint64 m_written = 0;
};

} // namespace tidemark
