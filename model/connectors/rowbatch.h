// SPDX-License-Identifier: MIT
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tidemark {

enum class CellType : std::uint8_t { Null, Integer, Real, Text, Blob };

// One value of a RowBatch. Text and blob bytes live in the batch's arena, so filling a batch
// costs no allocation per value once the batch has grown to its working size.
struct Cell {
    CellType type = CellType::Null;
    std::uint32_t length = 0;
    union {
        std::int64_t integer;
        double real;
        std::uint64_t offset; // into the arena, for Text and Blob
    };
    Cell()
        : integer(0) {}
};

// A bounded batch of rows in row-major order, reused from batch to batch so memory stays flat.
// Text is UTF-8. Not thread-safe; moved between threads only as a whole.
class RowBatch {
public:
    explicit RowBatch(int columnCount = 0)
        : m_columnCount(columnCount) {}

    void reset(int columnCount) {
        m_columnCount = columnCount;
        clear();
    }
    void clear() {
        m_cells.clear();
        m_arena.clear();
    }
    int columnCount() const { return m_columnCount; }
    int rowCount() const { return m_columnCount == 0 ? 0 : int(m_cells.size() / m_columnCount); }
    bool isEmpty() const { return m_cells.empty(); }
    std::size_t byteSize() const { return m_arena.size() + m_cells.size() * sizeof(Cell); }

    const Cell &cell(int row, int column) const { return m_cells[std::size_t(row) * m_columnCount + column]; }
    std::string_view bytes(const Cell &cell) const { return {m_arena.data() + cell.offset, cell.length}; }

    // Appending: call once per column, row after row.
    void appendNull() { m_cells.emplace_back(); }
    void appendInteger(std::int64_t value) {
        Cell &c = m_cells.emplace_back();
        c.type = CellType::Integer;
        c.integer = value;
    }
    void appendReal(double value) {
        Cell &c = m_cells.emplace_back();
        c.type = CellType::Real;
        c.real = value;
    }
    void appendText(const char *data, std::size_t size) { appendBytes(CellType::Text, data, size); }
    void appendBlob(const void *data, std::size_t size) { appendBytes(CellType::Blob, data, size); }
    // Drops the last, partly appended row (after a read error mid-row).
    void truncateRows(int rows) { m_cells.resize(std::size_t(rows) * m_columnCount); }

private:
    void appendBytes(CellType type, const void *data, std::size_t size) {
        Cell &c = m_cells.emplace_back();
        c.type = type;
        c.offset = m_arena.size();
        c.length = std::uint32_t(size);
        m_arena.append(static_cast<const char *>(data), size);
    }

    int m_columnCount = 0;
    std::vector<Cell> m_cells;
    std::string m_arena;
};

} // namespace tidemark
