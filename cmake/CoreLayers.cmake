# One static library per core folder, each linking only the folders it may use (STYLE: one target
# per folder, arrows point down). The layer table in core/CMakeLists.txt is a list of
# ggufx_core_folder() calls in order: a folder may only use folders declared before it, so the
# table cannot hold a cycle, and a folder may include a header of every folder it reaches through
# the table (its uses, their uses, ...).
#
# The table is enforced by a scan of the includes (cmake/CheckCoreLayers.cmake), not by include
# paths: every include is rooted at the project ("core/gguf/Model.h"), so any folder can reach
# any header, and a back-edge through a header-only type or an inline function would never meet
# the linker. The scan runs at configure time and again before core compiles whenever a core
# source changes (the stamp below depends on every file), and names the file, its include and the
# folders it may use.

set(GGUFX_CORE_FOLDERS "" CACHE INTERNAL "")

# ggufx_core_folder(name [USES folder...]): the library ggufcore_<name> of core/<name>/*.cpp.
function(ggufx_core_folder name)
    cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "USES")
    set(allowed)
    foreach(used IN LISTS arg_USES)
        if(NOT used IN_LIST GGUFX_CORE_FOLDERS)
            message(FATAL_ERROR "core/${name} uses core/${used}, which is not declared above it: the layer table lists a folder after every folder it uses")
        endif()
        list(APPEND allowed ${used} ${GGUFX_CORE_ALLOWED_${used}})
    endforeach()
    list(REMOVE_DUPLICATES allowed)
    set(GGUFX_CORE_ALLOWED_${name} "${allowed}" CACHE INTERNAL "")
    set(GGUFX_CORE_FOLDERS ${GGUFX_CORE_FOLDERS} ${name} CACHE INTERNAL "")

    file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${name}/*.cpp)
    if(GGUFX_CORE_EXCLUDED_SOURCES)
        list(REMOVE_ITEM sources ${GGUFX_CORE_EXCLUDED_SOURCES})
    endif()
    add_library(ggufcore_${name} STATIC ${sources})
    # The project root, so that every include names its layer: "core/gguf/Model.h".
    target_include_directories(ggufcore_${name} PUBLIC ${PROJECT_SOURCE_DIR})
    foreach(used IN LISTS arg_USES)
        target_link_libraries(ggufcore_${name} PUBLIC ggufcore_${used})
    endforeach()
    target_link_libraries(ggufcore_${name} PRIVATE ggufx_options)
    # The back-edges below make one cycle of several static libraries; GNU ld reads each archive
    # once in line order, so CMake must repeat the cycle often enough for every reference that
    # runs against the order (two rounds, CMake's default, left a fuzz harness unlinked).
    set_target_properties(ggufcore_${name} PROPERTIES POSITION_INDEPENDENT_CODE ON LINK_INTERFACE_MULTIPLICITY 8)
    # A section per function and object, so that the CLI's link (--gc-sections) drops what no
    # command reaches.
    target_compile_options(ggufcore_${name} PRIVATE -ffunction-sections -fdata-sections ${GGUFX_CORE_COMPILE_OPTIONS})
    target_compile_definitions(ggufcore_${name} PRIVATE ${GGUFX_CORE_COMPILE_DEFINITIONS})
    add_dependencies(ggufcore_${name} ggufcore_layers)
    target_link_libraries(ggufcore INTERFACE ggufcore_${name})
endfunction()

# ggufx_core_back_edges("folder/File.ext > folder" ...): includes that break the table today,
# each named with the file that makes it. The scan accepts exactly these (a new back-edge still
# fails) and warns when one is gone, so that the list only shrinks. The library gets the link
# dependency the edge needs (a cycle of static libraries, which CMake repeats on the link line).
function(ggufx_core_back_edges)
    set(GGUFX_CORE_BACK_EDGES ${ARGN} CACHE INTERNAL "")
    foreach(edge IN LISTS ARGN)
        if(NOT edge MATCHES "^([a-z]+)/[^ ]+ > ([a-z]+)$")
            message(FATAL_ERROR "back-edge '${edge}' is not 'folder/File.ext > folder'")
        endif()
        target_link_libraries(ggufcore_${CMAKE_MATCH_1} PRIVATE ggufcore_${CMAKE_MATCH_2})
    endforeach()
endfunction()

# Writes the table for the scan, runs it now (a back-edge fails the configure), and adds the
# build step that runs it again when a core file changes.
function(ggufx_core_check_layers)
    set(rules "${CMAKE_CURRENT_BINARY_DIR}/CoreLayerRules.cmake")
    set(content "set(CORE_DIR \"${CMAKE_CURRENT_SOURCE_DIR}\")\nset(FOLDERS \"${GGUFX_CORE_FOLDERS}\")\n")
    string(APPEND content "set(BACK_EDGES \"${GGUFX_CORE_BACK_EDGES}\")\n")
    foreach(folder IN LISTS GGUFX_CORE_FOLDERS)
        string(APPEND content "set(ALLOWED_${folder} \"${GGUFX_CORE_ALLOWED_${folder}}\")\n")
    endforeach()
    file(CONFIGURE OUTPUT ${rules} CONTENT "${content}")

    set(script ${PROJECT_SOURCE_DIR}/cmake/CheckCoreLayers.cmake)
    execute_process(COMMAND ${CMAKE_COMMAND} -DRULES=${rules} -P ${script} RESULT_VARIABLE status)
    if(NOT status EQUAL 0)
        message(FATAL_ERROR "core's layer table is broken (above); see docs/architecture.md")
    endif()

    file(GLOB_RECURSE files CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.h ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp
         ${CMAKE_CURRENT_SOURCE_DIR}/*.inc)
    set(stamp ${CMAKE_CURRENT_BINARY_DIR}/core-layers.stamp)
    add_custom_command(OUTPUT ${stamp}
        COMMAND ${CMAKE_COMMAND} -DRULES=${rules} -P ${script}
        COMMAND ${CMAKE_COMMAND} -E touch ${stamp}
        DEPENDS ${files} ${rules} ${script}
        COMMENT "Checking core's includes against its layer table" VERBATIM)
    set_property(TARGET ggufcore_layers APPEND PROPERTY SOURCES ${stamp})
endfunction()
