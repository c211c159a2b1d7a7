// SPDX-License-Identifier: MIT
#include "model/common/csv.h"

#include <cstdlib>

namespace tidemark {

QString csvField(const QString &text) {
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) &&
        !text.contains(QLatin1Char('\n')) && !text.contains(QLatin1Char('\r')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString csvRecord(const QStringList &fields) {
    QStringList quoted;
    quoted.reserve(fields.size());
    for (const QString &field : fields)
        quoted << csvField(field);
    return quoted.join(QLatin1Char(',')) + QStringLiteral("\r\n");
}

QString csvTime(const QDateTime &time, const QTimeZone &zone) {
    if (!time.isValid())
        return {};
    // The offset spelled out, also in UTC (Qt would write a bare "Z" there).
    const QDateTime local = time.toTimeZone(zone);
    const int offsetMinutes = local.offsetFromUtc() / 60;
    const int minutes = std::abs(offsetMinutes);
    return local.toString(QStringLiteral("yyyy-MM-dd'T'HH:mm:ss.zzz")) +
           QLatin1Char(offsetMinutes < 0 ? '-' : '+') +
           QStringLiteral("%1:%2")
               .arg(minutes / 60, 2, 10, QLatin1Char('0'))
               .arg(minutes % 60, 2, 10, QLatin1Char('0'));
}

QString csvSeconds(qint64 milliseconds) {
    return QString::number(double(milliseconds) / 1000.0, 'f', 3);
}

} // namespace tidemark
