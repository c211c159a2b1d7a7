// SPDX-License-Identifier: MIT
#pragma once

#include "model/domain/runrecord.h"

#include <spdlog/sinks/base_sink.h>

#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <cstdio>
#include <mutex>

namespace tidemark::cli {

// `serve --json-log`: one JSON object per log line on stderr ({"at", "level", "logger",
// "message"}), for journald and log shippers that parse structured lines.
class JsonLogSink : public spdlog::sinks::base_sink<std::mutex> {
protected:
    void sink_it_(const spdlog::details::log_msg &msg) override {
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(msg.time.time_since_epoch());
        QJsonObject line;
        line.insert(QStringLiteral("at"), isoUtc(QDateTime::fromMSecsSinceEpoch(ms.count(), Qt::UTC)));
        const auto level = spdlog::level::to_string_view(msg.level);
        line.insert(QStringLiteral("level"), QString::fromUtf8(level.data(), qsizetype(level.size())));
        line.insert(QStringLiteral("logger"),
                    QString::fromUtf8(msg.logger_name.data(), qsizetype(msg.logger_name.size())));
        line.insert(QStringLiteral("message"),
                    QString::fromUtf8(msg.payload.data(), qsizetype(msg.payload.size())));
        const QByteArray bytes = QJsonDocument(line).toJson(QJsonDocument::Compact) + '\n';
        std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stderr);
        std::fflush(stderr); // a line at a time: the runner lives for days
    }
    void flush_() override { std::fflush(stderr); }
};

} // namespace tidemark::cli
