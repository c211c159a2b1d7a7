// SPDX-License-Identifier: MIT
#include "model/models/runhistorycsv.h"

#include "model/common/csv.h"
#include "model/common/error.h"
#include "model/models/runhistorymodel.h"

#include <QDir>

namespace tidemark {

RunHistoryCsv::RunHistoryCsv(const QString &path, const QStringList &header, const QTimeZone &zone)
    : m_path(path)
    , m_zone(zone)
    , m_file(path) {
    if (!m_file.open(QIODevice::WriteOnly))
        fail();
    append(csvRecord(header));
}

void RunHistoryCsv::write(const QList<RunOverview> &runs) {
    QString text;
    for (const RunOverview &run : runs)
        text += csvRecord(RunHistoryModel::csvFields(run, m_zone));
    append(text);
    m_written += runs.size();
}

void RunHistoryCsv::commit() {
    if (!m_file.commit())
        fail();
}

void RunHistoryCsv::append(const QString &text) {
    if (m_file.write(text.toUtf8()) < 0)
        fail();
}

void RunHistoryCsv::fail() const {
    throw Error(
        QStringLiteral("cannot write %1: %2").arg(QDir::toNativeSeparators(m_path), m_file.errorString()));
}

} // namespace tidemark
