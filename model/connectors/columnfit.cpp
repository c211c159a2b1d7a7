// SPDX-License-Identifier: MIT
#include "model/connectors/columnfit.h"

#include <QRegularExpression>
#include <optional>

namespace tidemark {

namespace {

bool fromMysql(const ColumnInfo &column) {
    return column.origin == QLatin1String("mysql");
}

bool fromPostgres(const ColumnInfo &column) {
    return column.origin == QLatin1String("postgres");
}

QString typeOf(const ColumnInfo &column) {
    return column.nativeType.trimmed().toLower();
}

// "(6)" of datetime(6), "(12,4)" of decimal(12,4): the first parenthesis of a declared type.
QRegularExpressionMatch typeArguments(const ColumnInfo &column) {
    static const QRegularExpression arguments(QStringLiteral(R"(\(\s*(\d+)\s*(?:,\s*(-?\d+)\s*)?\))"));
    return arguments.match(column.nativeType);
}

// Digits after the second a time column keeps: MySQL's default is none, PostgreSQL's six; a
// SQLite source's text carries up to six (more are refused value by value).
int fractionDigits(const ColumnInfo &column) {
    if (column.logical == LogicalType::Date)
        return 0;
    if (!fromMysql(column) && !fromPostgres(column))
        return 6;
    const auto match = typeArguments(column);
    if (match.hasMatch())
        return match.captured(1).toInt();
    return fromMysql(column) ? 0 : 6;
}

struct DecimalBounds {
    int precision = 0;
    int scale = 0;
};

// nullopt: no bound (PostgreSQL's numeric, SQLite's NUMERIC).
std::optional<DecimalBounds> decimalBounds(const ColumnInfo &column) {
    const QString type = typeOf(column);
    if (fromMysql(column) && type.startsWith(QLatin1String("bigint")) &&
        type.contains(QLatin1String("unsigned")))
        return DecimalBounds{20, 0};
    const auto match = typeArguments(column);
    if (!match.hasMatch())
        return std::nullopt;
    return DecimalBounds{match.captured(1).toInt(), match.captured(2).toInt()};
}

// PostgreSQL's real, MySQL's FLOAT; a SQLite REAL is a double.
bool singlePrecision(const ColumnInfo &column) {
    const QString type = typeOf(column);
    return (fromMysql(column) && type.startsWith(QLatin1String("float"))) ||
           (fromPostgres(column) && type == QLatin1String("real"));
}

// Significant decimal digits a float column keeps: any decimal of that many digits comes back
// unchanged (FLT_DIG, DBL_DIG).
int floatDigits(const ColumnInfo &column) {
    return singlePrecision(column) ? 6 : 15;
}

QString scaleText(const std::optional<DecimalBounds> &bounds) {
    return bounds ? QString::number(bounds->scale) : QStringLiteral("no limit");
}

QString precisionText(const std::optional<DecimalBounds> &bounds) {
    return bounds ? QString::number(bounds->precision) : QStringLiteral("no limit");
}

QString timeLoss(const ColumnInfo &source, const ColumnInfo &target) {
    if (target.logical == LogicalType::Date)
        return QStringLiteral("it keeps no time of day");
    if (target.logical != LogicalType::Timestamp && target.logical != LogicalType::TimestampTz)
        return QString();
    const int kept = fractionDigits(target);
    const int held = fractionDigits(source);
    if (kept >= held)
        return QString();
    return QStringLiteral(
               "it keeps %1 fraction digits of a second where the source has %2, so times would be cut")
        .arg(kept)
        .arg(held);
}

QString decimalLoss(const ColumnInfo &source, const ColumnInfo &target) {
    const auto held = decimalBounds(source);
    switch (target.logical) {
    case LogicalType::Numeric: {
        const auto kept = decimalBounds(target);
        if (!kept)
            return QString();
        if (!held || held->scale > kept->scale)
            return QStringLiteral("it keeps %1 digits after the point where the source has %2, so values "
                                  "would be rounded")
                .arg(kept->scale)
                .arg(scaleText(held));
        return QString();
    }
    case LogicalType::Real:
        if (held && held->precision <= floatDigits(target))
            return QString();
        return QStringLiteral("a floating-point column keeps about %1 significant digits where the source "
                              "has %2, so values would be rounded")
            .arg(floatDigits(target))
            .arg(precisionText(held));
    case LogicalType::Integer:
        if (!held || held->scale > 0)
            return QStringLiteral("it keeps no digits after the point where the source has %1")
                .arg(scaleText(held));
        return QString();
    default:
        return QString();
    }
}

QString floatLoss(const ColumnInfo &source, const ColumnInfo &target) {
    switch (target.logical) {
    case LogicalType::Integer:
        return QStringLiteral("it keeps no fraction of the source's floating-point values");
    case LogicalType::Real:
        if (singlePrecision(target) && !singlePrecision(source))
            return QStringLiteral("a single-precision column rounds the source's double-precision values");
        return QString();
    case LogicalType::Numeric: {
        const auto kept = decimalBounds(target);
        if (!kept)
            return QString();
        return QStringLiteral("it keeps %1 digits after the point and would round the source's "
                              "floating-point values")
            .arg(kept->scale);
    }
    default:
        return QString();
    }
}

} // namespace

QString columnLoss(const ColumnInfo &source, const ColumnInfo &target) {
    if (!fromMysql(target) && !fromPostgres(target))
        return QString();
    switch (source.logical) {
    case LogicalType::Timestamp:
    case LogicalType::TimestampTz:
        return timeLoss(source, target);
    case LogicalType::Numeric:
        return decimalLoss(source, target);
    case LogicalType::Real:
        return floatLoss(source, target);
    default:
        return QString();
    }
}

} // namespace tidemark
