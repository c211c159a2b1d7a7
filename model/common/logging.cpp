// SPDX-License-Identifier: MIT
#include "model/common/logging.h"

#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <QDir>
#include <QFileInfo>
#include <QtGlobal>
#include <cstdio>
#include <mutex>
#include <sys/stat.h>
#include <vector>

namespace tidemark {
namespace {

std::mutex g_mutex;
std::vector<spdlog::sink_ptr> g_sinks;

std::vector<spdlog::sink_ptr> &defaultSinks() {
    if (g_sinks.empty()) {
        auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
        console->set_level(spdlog::level::warn);
        g_sinks.push_back(console);
    }
    return g_sinks;
}

} // namespace

std::shared_ptr<spdlog::logger> logger(const char *name) {
    std::lock_guard lock(g_mutex);
    if (auto existing = spdlog::get(name))
        return existing;
    auto &sinks = defaultSinks();
    auto created = std::make_shared<spdlog::logger>(name, sinks.begin(), sinks.end());
    created->set_level(spdlog::level::info);
    spdlog::register_logger(created);
    return created;
}

void installLogSinks(const QString &logFile, bool toStderr) {
    std::lock_guard lock(g_mutex);
    g_sinks.clear();
    if (toStderr) {
        auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
        console->set_level(spdlog::level::warn);
        g_sinks.push_back(console);
    }
    if (!logFile.isEmpty()) {
        try {
            QDir().mkpath(QFileInfo(logFile).absolutePath()); // a server workspace's state folder
            // Private like the workspace whatever the umask, and again after each rotation.
            spdlog::file_event_handlers privateFile;
            privateFile.after_open = [](const spdlog::filename_t &, std::FILE *file) {
                ::fchmod(::fileno(file), S_IRUSR | S_IWUSR);
            };
            g_sinks.push_back(std::make_shared<spdlog::sinks::rotating_file_sink_mt>(
                logFile.toStdString(), 5 * 1024 * 1024, 5, false, privateFile));
        } catch (const spdlog::spdlog_ex &) {
            // A read-only folder must not stop a run; the iteration logs still go to history.
        }
    }
    spdlog::apply_all([](const std::shared_ptr<spdlog::logger> &existing) { existing->sinks() = g_sinks; });
}

void replaceStderrSink(spdlog::sink_ptr sink) {
    std::lock_guard lock(g_mutex);
    std::erase_if(g_sinks, [](const spdlog::sink_ptr &existing) {
        return std::dynamic_pointer_cast<spdlog::sinks::stderr_color_sink_mt>(existing) != nullptr;
    });
    g_sinks.insert(g_sinks.begin(), std::move(sink));
    spdlog::apply_all([](const std::shared_ptr<spdlog::logger> &existing) { existing->sinks() = g_sinks; });
}

void forwardQtMessages() {
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext &, const QString &message) {
        auto qt = logger("qt");
        switch (type) {
        case QtDebugMsg:
            qt->debug(message.toStdString());
            break;
        case QtInfoMsg:
            qt->info(message.toStdString());
            break;
        case QtWarningMsg:
            qt->warn(message.toStdString());
            break;
        default:
            qt->error(message.toStdString());
            break;
        }
    });
}

} // namespace tidemark
