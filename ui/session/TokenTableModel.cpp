#include "ui/session/TokenTableModel.h"

#include "core/gguf/ByteLevelText.h"
#include "core/gguf/MetadataFormat.h"

#include <algorithm>
#include <limits>

namespace {
constexpr int kToolTipBytes = 64;
}

TokenTableModel::TokenTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void TokenTableModel::setVocabulary(std::shared_ptr<const gguf::Vocabulary> vocabulary, bool byteLevel)
{
    beginResetModel();
    m_vocabulary = std::move(vocabulary);
    m_byteLevel = byteLevel;
    m_matches.reset();
    endResetModel();
}

void TokenTableModel::setMatches(std::vector<std::uint32_t> ids)
{
    beginResetModel();
    const std::size_t size = tokenCount();
    ids.erase(std::remove_if(ids.begin(), ids.end(), [size](std::uint32_t id) { return id >= size; }), ids.end());
    m_matches = std::move(ids);
    endResetModel();
}

void TokenTableModel::showAll()
{
    if (!m_matches)
        return;
    beginResetModel();
    m_matches.reset();
    endResetModel();
}

std::uint32_t TokenTableModel::tokenId(int row) const
{
    return m_matches ? (*m_matches)[static_cast<std::size_t>(row)] : static_cast<std::uint32_t>(row);
}

int TokenTableModel::rowCount(const QModelIndex& parent) const
{
    if (parent.isValid())
        return 0;
    // Vocabulary caps token counts at int32, the range of llama.cpp token ids.
    const std::size_t rows = m_matches ? m_matches->size() : tokenCount();
    return static_cast<int>(std::min<std::size_t>(rows, std::numeric_limits<int>::max()));
}

int TokenTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : (m_byteLevel ? ColumnCount + 1 : ColumnCount);
}

QString TokenTableModel::toolTip(std::uint32_t id) const
{
    // The bytes settle what the text cannot show: trailing spaces, look-alike characters.
    const std::string_view raw = m_vocabulary->text(id);
    QString hex;
    const std::size_t shown = std::min<std::size_t>(raw.size(), kToolTipBytes);
    for (std::size_t i = 0; i < shown; ++i)
        hex += QStringLiteral("%1 ").arg(static_cast<unsigned char>(raw[i]), 2, 16, QLatin1Char('0'));
    if (shown < raw.size())
        hex += QStringLiteral("…");
    return tr("Token %1, %2 bytes: %3").arg(id).arg(raw.size()).arg(hex.trimmed());
}

QString TokenTableModel::readsAs(std::uint32_t id) const
{
    const std::optional<std::string> bytes = gguf::decodeByteLevelToken(m_vocabulary->text(id));
    if (!bytes)
        return {};
    // A leading space is what most of these tokens are about, and invisible; show it as ␣.
    return QString::fromStdString(gguf::tokenDisplayText(*bytes)).replace(QLatin1Char(' '), QChar(0x2423));
}

QVariant TokenTableModel::data(const QModelIndex& index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid) || !m_vocabulary)
        return {};
    const std::uint32_t id = tokenId(index.row());
    switch (role) {
    case TokenIdRole: return id;
    case Qt::ToolTipRole: return toolTip(id);
    case Qt::TextAlignmentRole:
        return index.column() == Id || index.column() == Score ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    case Qt::DisplayRole: break;
    default: return {};
    }
    switch (index.column()) {
    case Id: return id;
    case Text: return QString::fromStdString(m_vocabulary->displayText(id));
    case Score: {
        const auto score = m_vocabulary->score(id);
        return score ? QString::fromStdString(gguf::formatFloat(*score, m_vocabulary->scoresAreSinglePrecision())) : QString();
    }
    case Type: {
        const auto type = m_vocabulary->tokenType(id);
        return type ? QString::fromStdString(gguf::tokenTypeName(*type)) : QString();
    }
    case ReadsAs: return m_byteLevel ? readsAs(id) : QString();
    default: return {};
    }
}

QVariant TokenTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Id: return tr("Id");
    case Text: return tr("Text");
    case Score: return tr("Score");
    case Type: return tr("Type");
    case ReadsAs: return m_byteLevel ? tr("Reads as") : QVariant();
    default: return {};
    }
}
