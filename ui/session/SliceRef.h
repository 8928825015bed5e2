#pragma once
// A slice together with the model that owns its bytes: background work captures this, so the
// mapping outlives the job even if the user closes the tab meanwhile.

#include "core/gguf/Model.h"
#include "core/gguf/TensorSlice.h"

#include <QString>
#include <memory>
#include <optional>

struct SliceRef {
    std::shared_ptr<const gguf::Model> model;
    gguf::TensorSlice slice;
    std::optional<std::uint64_t> expert;

    bool isValid() const { return model && slice.tensor; }
    QString tensorName() const
    {
        return slice.tensor ? QString::fromUtf8(slice.tensor->name.data(), static_cast<qsizetype>(slice.tensor->name.size())) : QString();
    }
    // "blk.0.ffn_up_exps.weight" or "blk.0.ffn_up_exps.weight · expert 3", for titles and files.
    QString label() const
    {
        return expert ? QStringLiteral("%1 · expert %2").arg(tensorName()).arg(*expert) : tensorName();
    }
    QString cacheKey() const
    {
        return QStringLiteral("%1#%2").arg(tensorName()).arg(expert ? static_cast<qint64>(*expert) : -1);
    }
};
